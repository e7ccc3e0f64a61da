// The capacity view's page module (blockviz/views/js/capacity.js) in a DOM (jsdom): two sliders that
// send their trait to Python, and the picture Python renders placed as each new one arrives.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Model } from "./fake_page.mjs";

const { default: widget } = await import("../../../blockviz/views/js/capacity.js");

function shown(state = {}) {
  const model = new Model({ html: '<div class="bv-capacity" data-gpu-tokens="1000"></div>', total_log: 3,
                            gpu_share: 1, lo_log: 2, hi_log: 8, labels: { total: "memory", split: "GPU" }, ...state });
  const el = document.createElement("div");
  widget.render({ model, el });
  return { model, el };
}

test("it places two sliders with the bounds and labels Python gave", () => {
  const { el } = shown();
  const [total, split] = el.querySelectorAll("input[type=range]");
  assert.equal(total.dataset.trait, "total_log");
  assert.equal([total.min, total.max, total.value].join(), "2,8,3");
  assert.equal(split.dataset.trait, "gpu_share");
  assert.equal([split.min, split.max, split.value].join(), "0,1,1");
  assert.deepEqual([...el.querySelectorAll(".bv-capacity-slider span")].map((s) => s.textContent), ["memory", "GPU"]);
});

test("moving a slider sends its value; the new picture replaces the old one", () => {
  const { model, el } = shown();
  const total = el.querySelector('input[data-trait="total_log"]');
  total.value = "6.5";
  total.dispatchEvent(new window.Event("input"));
  assert.equal(model.get("total_log"), 6.5);
  assert.equal(model.saved, 1);
  model.change("html", '<div class="bv-capacity" data-gpu-tokens="3162278"></div>');
  assert.equal(el.querySelectorAll(".bv-capacity").length, 1);
  assert.equal(el.querySelector(".bv-capacity").dataset.gpuTokens, "3162278");
});

test("a value Python sets moves the slider", () => {
  const { model, el } = shown();
  model.change("gpu_share", 0.25);
  assert.equal(el.querySelector('input[data-trait="gpu_share"]').value, "0.25");
});
