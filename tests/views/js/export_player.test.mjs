// The exported HTML player (blockviz/views/js/export_player.js) as a reader gets it: the page
// export_html wrote for a real engine run (BV_EXPORT_FIXTURE, from tests/views/test_js.py), its inline
// script run by jsdom, driven by its buttons, slider and keys.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const { JSDOM } = createRequire(import.meta.url)("jsdom");
const page = readFileSync(process.env.BV_EXPORT_FIXTURE, "utf8");

function open() {
  const dom = new JSDOM(page, { runScripts: "dangerously", pretendToBeVisual: true });
  const { document } = dom.window;
  const shown = () => [...document.querySelectorAll(".bv-frame")].filter((f) => !f.hidden).map((f) => f.dataset.step);
  const key = (name) => document.dispatchEvent(new dom.window.KeyboardEvent("keydown", { key: name, cancelable: true }));
  const click = (id) => document.getElementById(id).click();
  return { dom, document, shown, key, click };
}

test("the page opens on its first frame, one frame shown, its title in the label", () => {
  const { document, shown } = open();
  const frames = document.querySelectorAll(".bv-frame");
  assert.ok(frames.length > 3);
  assert.deepEqual(shown(), [frames[0].dataset.step]);
  assert.equal(document.getElementById("bv-label").textContent, frames[0].dataset.title);
  assert.equal(document.getElementById("bv-slider").value, "0");
});

test("buttons and arrow keys step, and stop at either end", () => {
  const { document, shown, key, click } = open();
  const steps = [...document.querySelectorAll(".bv-frame")].map((f) => f.dataset.step);
  click("bv-forward");
  click("bv-forward");
  assert.deepEqual(shown(), [steps[2]]);
  key("ArrowLeft");
  assert.deepEqual(shown(), [steps[1]]);
  click("bv-back");
  click("bv-back");
  assert.deepEqual(shown(), [steps[0]]);
  for (let i = 0; i < steps.length + 3; i++) key("ArrowRight");
  assert.deepEqual(shown(), [steps.at(-1)]);
  assert.equal(document.getElementById("bv-slider").value, String(steps.length - 1));
});

test("the slider jumps to its frame", () => {
  const { dom, document, shown } = open();
  const slider = document.getElementById("bv-slider");
  slider.value = "3";
  slider.dispatchEvent(new dom.window.Event("input"));
  assert.deepEqual(shown(), [document.querySelectorAll(".bv-frame")[3].dataset.step]);
  assert.equal(document.getElementById("bv-label").textContent, document.querySelectorAll(".bv-frame")[3].dataset.title);
});

test("space plays to the last frame and stops there, the button saying which it does next", async () => {
  const { document, shown, key } = open();
  const play = document.getElementById("bv-play");
  const steps = [...document.querySelectorAll(".bv-frame")].map((f) => f.dataset.step);
  assert.equal(play.textContent, play.dataset.play);
  key(" ");
  assert.equal(play.textContent, play.dataset.pause);
  await new Promise((resolve) => setTimeout(resolve, 750));
  assert.deepEqual(shown(), [steps[1]]);
  key(" ");  // pause
  assert.equal(play.textContent, play.dataset.play);
  await new Promise((resolve) => setTimeout(resolve, 750));
  assert.deepEqual(shown(), [steps[1]]);
  for (let i = 2; i < steps.length - 1; i++) key("ArrowRight");
  play.click();
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.deepEqual(shown(), [steps.at(-1)]);
  assert.equal(play.textContent, play.dataset.play);  // stopped by itself at the end
});
