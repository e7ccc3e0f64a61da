// The widgets' page modules (blockviz/views/js/player.js, frame.js, view.js) in a DOM (jsdom), driven
// through a model with anywidget's interface (get, set, save_changes, send, on): what each button and
// key sends to Python, and what the page shows of the model's state.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Model } from "./fake_page.mjs";

const PLAYER_STRINGS = Object.fromEntries(["first", "back", "play", "pause", "forward", "last", "jump", "speed", "keys",
  "follow", "legend"].map((key) => [key, `<${key}>`]));

async function player(state = {}) {
  const { default: widget } = await import("../../../blockviz/views/js/player.js");
  const model = new Model({ strings: PLAYER_STRINGS, step: 3, first_step: 0, last_step: 5, at_end: false,
                            playing: false, speed: 2, status: "step 3 / 5", follow: false, ahead: {}, channel: "",
                            ...state });
  const el = document.createElement("div");
  widget.render({ model, el });
  return [model, el];
}

test("the player's buttons: ⇤ ◀ ▶ ⇥, then a separate play, each sending its command", async () => {
  const [model, el] = await player();
  const buttons = [...el.querySelectorAll("button")];
  assert.deepEqual(buttons.map((b) => b.textContent), ["⇤", "◀", "▶", "⇥", "▷ <play>"]);
  assert.deepEqual(buttons.map((b) => b.dataset.cmd), ["first", "back", "forward", "last", "toggle"]);
  for (const b of buttons) b.click();
  assert.deepEqual(model.sent.map((m) => m.cmd), ["first", "back", "forward", "last", "toggle"]);
  assert.equal(el.querySelector(".bv-legend").textContent, "<legend>");
  assert.equal(el.querySelector(".bv-status").textContent, "step 3 / 5");
});

test("a press in a cell not yet active reaches the notebook only after the step is drawn", async () => {
  const [, el] = await player();
  const cell = document.createElement("div"), seen = [];
  cell.append(el);
  document.body.append(cell);
  for (const type of ["mousedown", "focusin"]) cell.addEventListener(type, () => seen.push(type));
  const forward = el.querySelector('button[data-cmd="forward"]');
  forward.dispatchEvent(new window.MouseEvent("mousedown", { bubbles: true }));
  forward.dispatchEvent(new window.FocusEvent("focusin", { bubbles: true }));
  assert.deepEqual(seen, []);  // JupyterLab would make the cell active now, restyling all of it
  await new Promise((resolve) => setTimeout(resolve, 20));  // two frames later
  assert.deepEqual(seen, ["focusin"]);  // handed on: the cell becomes active
  cell.classList.add("jp-mod-active");  // once active, presses go through as they are
  forward.dispatchEvent(new window.MouseEvent("mousedown", { bubbles: true }));
  assert.deepEqual(seen, ["focusin", "mousedown"]);
  cell.remove();
});

test("keys: ← and → step, space plays; the step field seeks; the follow box asks to follow", async () => {
  const [model, el] = await player();
  const root = el.querySelector(".bv-player");
  for (const key of ["ArrowLeft", "ArrowRight", " "]) {
    root.dispatchEvent(new window.KeyboardEvent("keydown", { key, bubbles: true }));
  }
  const jump = el.querySelector(".bv-jump");
  assert.equal(jump.value, "3");
  jump.value = "4";
  jump.dispatchEvent(new window.Event("change"));
  const follow = el.querySelector(".bv-follow input");
  follow.checked = true;
  follow.dispatchEvent(new window.Event("change"));
  assert.deepEqual(model.sent.map(({ cmd, step }) => ({ cmd, step })),
                   [{ cmd: "back", step: undefined }, { cmd: "forward", step: undefined },
                    { cmd: "toggle", step: undefined }, { cmd: "seek", step: 4 }, { cmd: "follow", step: undefined }]);
  assert.equal(new Set(model.sent.map((m) => m.id)).size, 5);  // each command named, for its answer
});

test("Enter in the step field seeks at once, and leaving the field then does not seek again", async () => {
  const [model, el] = await player();
  const jump = el.querySelector(".bv-jump");
  let reachedRoot = 0;
  el.addEventListener("keydown", () => { reachedRoot += 1; });
  jump.value = "7";
  jump.dispatchEvent(new window.Event("input"));
  const enter = new window.KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true });
  jump.dispatchEvent(enter);
  assert.equal(enter.defaultPrevented, true);
  assert.equal(reachedRoot, 0);  // JupyterLab's shortcuts never see it
  jump.dispatchEvent(new window.Event("change"));  // the browser's own change, on blur
  jump.value = "2";
  jump.dispatchEvent(new window.Event("input"));
  jump.dispatchEvent(new window.KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true }));
  assert.deepEqual(model.sent.map(({ cmd, step }) => [cmd, step]), [["seek", 7], ["seek", 2]]);
});

test("an answer arriving while the reader types a step leaves the typing alone; leaving the field shows the step", async () => {
  const [model, el] = await player();
  document.body.append(el);
  const jump = el.querySelector(".bv-jump");
  jump.focus();
  jump.value = "5";
  model.change("status", "step 3 / 5 · later");  // a late answer to an earlier command
  assert.equal(jump.value, "5");
  jump.blur();
  assert.equal(jump.value, "3");
  el.remove();
});

test("the page shows Python's state: pause while playing, ends marked, the step field's range", async () => {
  const [model, el] = await player({ step: 0 });
  const play = el.querySelector('[data-cmd="toggle"]');
  assert.equal(el.querySelector('[data-cmd="back"]').getAttribute("aria-disabled"), "true");
  assert.equal(el.querySelector('[data-cmd="forward"]').getAttribute("aria-disabled"), "false");
  model.change("playing", true);
  assert.equal(play.textContent, "❚❚ <pause>");
  assert.equal(play.getAttribute("aria-pressed"), "true");
  model.change("at_end", true);
  assert.equal(el.querySelector('[data-cmd="forward"]').getAttribute("aria-disabled"), "true");
  model.change("first_step", 2);
  assert.equal(el.querySelector(".bv-jump").min, "2");
  model.change("follow", true);
  assert.equal(el.querySelector(".bv-follow input").checked, true);
});

test("while playing, the player asks for the next step only once the last one is answered", async () => {
  const [model] = await player({ speed: 16 });
  model.change("playing", true);
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.deepEqual(model.sent.map((m) => m.cmd), ["forward"]);  // waiting for Python's answer
  model.message({ done: true, id: "another page's" });
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.deepEqual(model.sent.map((m) => m.cmd), ["forward"]);  // not this page's: still waiting
  model.message({ done: true, id: model.sent[0].id });
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.deepEqual(model.sent.map((m) => m.cmd), ["forward", "forward"]);
  model.change("playing", false);
});

test("a view alone shows its step and follow toggle; under a player the bar is hidden", async () => {
  const { default: view } = await import("../../../blockviz/views/js/view.js");
  const model = new Model({ svg: '<svg data-step="2"><g data-block-id="4"><rect></rect></g></svg>', detail: "",
                            max_height: "", controls: true, caption: "step 2", follow: false,
                            strings: { follow: "follow the live end" } });
  const el = document.createElement("div");
  view.render({ model, el });
  const bar = el.querySelector(".bv-viewbar");
  assert.equal(bar.hidden, false);
  assert.match(bar.textContent, /^step 2 follow the live end$/);
  const box = bar.querySelector("input");
  box.checked = true;
  box.dispatchEvent(new window.Event("change"));
  assert.equal(model.get("follow"), true);
  assert.equal(model.saved, 1);
  el.querySelector('[data-block-id="4"] rect').dispatchEvent(new window.MouseEvent("click", { bubbles: true }));
  assert.deepEqual(model.sent, [{ block: 4 }]);  // a click on a block asks Python for its details
  model.change("controls", false);
  assert.equal(bar.hidden, true);
  model.change("detail", "<b>block 4</b>");
  assert.equal(el.querySelector(".bv-detail-box").innerHTML, "<b>block 4</b>");
});

const frames = () => new Promise((resolve) => setTimeout(resolve, 20));  // fake_page's frames: 1 ms each

test("◀ ▶ and ← → show a step sent ahead at once, with every view driven, then tell Python the step", async () => {
  const { listenSteps } = await import("../../../blockviz/views/js/step_ahead.js");
  const [model, el] = await player({ channel: "c1", ahead: { 2: ["step 2 / 5", false], 4: ["step 4 / 5", false] } });
  const shown = [];
  const stop = listenSteps(window, () => "c1", (step, apply) => { if (apply) shown.push(step); return step !== 5; });
  const root = el.querySelector(".bv-player");
  try {
    el.querySelector('[data-cmd="forward"]').click();
    assert.deepEqual(shown, [4]);  // the view drew step 4 ...
    assert.equal(root.dataset.step, "4");  // ... and the player shows it, before Python answered
    assert.equal(el.querySelector(".bv-status").textContent, "step 4 / 5");
    assert.equal(el.querySelector(".bv-jump").value, "4");
    assert.equal(root.getAttribute("aria-busy"), "true");
    assert.deepEqual(model.sent, []);  // Python hears of it once the frame is drawn
    await frames();
    assert.deepEqual(model.sent.map(({ cmd, step }) => [cmd, step]), [["seek", 4]]);
    model.change("status", "step 3 / 5");  // an answer to an earlier command: the step shown stays
    assert.equal(root.dataset.step, "4");
    root.dispatchEvent(new window.KeyboardEvent("keydown", { key: "ArrowRight", bubbles: true }));
    assert.deepEqual(shown, [4]);  // nothing was sent ahead for step 5: Python is asked
    assert.deepEqual(model.sent.map(({ cmd, step }) => [cmd, step]), [["seek", 4], ["forward", undefined]]);
    model.change("step", 5); model.change("status", "step 5 / 5");
    model.message({ done: true, id: model.sent[0].id });
    assert.equal(root.dataset.step, "4");  // one answer still to come
    model.message({ done: true, id: model.sent[1].id });
    assert.equal(root.dataset.step, "5");  // all answered: Python's state
    assert.equal(root.getAttribute("aria-busy"), "false");
  } finally {
    stop();
  }
});

test("a command sent while a step shown at once waits for its frame goes to Python after it", async () => {
  const { listenSteps } = await import("../../../blockviz/views/js/step_ahead.js");
  const [model, el] = await player({ channel: "c3", ahead: { 4: ["step 4 / 5", false] } });
  const stop = listenSteps(window, () => "c3", (step) => step === 4);
  try {
    el.querySelector('[data-cmd="forward"]').click();  // step 4, shown at once
    el.querySelector('[data-cmd="forward"]').click();  // step 5: not sent ahead, asked of Python
    el.querySelector('[data-cmd="toggle"]').click();
    assert.deepEqual(model.sent, []);
    await frames();
    assert.deepEqual(model.sent.map(({ cmd, step }) => [cmd, step]), [["seek", 4], ["forward", undefined],
                                                                      ["toggle", undefined]]);
    el.querySelector('[data-cmd="last"]').click();  // nothing waits: sent at once
    assert.equal(model.sent.at(-1).cmd, "last");
  } finally {
    stop();
  }
});

test("in a page that draws no frames (a tab in the background) a step shown at once still reaches Python", async () => {
  const { LATER_MS } = await import("../../../blockviz/views/js/player.js");
  const { listenSteps } = await import("../../../blockviz/views/js/step_ahead.js");
  const [model, el] = await player({ channel: "c4", ahead: { 4: ["step 4 / 5", false] } });
  const stop = listenSteps(window, () => "c4", (step) => step === 4);
  const drawing = globalThis.requestAnimationFrame;
  globalThis.requestAnimationFrame = () => 0;  // no frame comes
  try {
    el.querySelector('[data-cmd="forward"]').click();
    assert.equal(el.querySelector(".bv-player").dataset.step, "4");
    assert.deepEqual(model.sent, []);
    await new Promise((resolve) => setTimeout(resolve, LATER_MS + 20));
    assert.deepEqual(model.sent.map(({ cmd, step }) => [cmd, step]), [["seek", 4]]);
  } finally {
    globalThis.requestAnimationFrame = drawing;
    stop();
  }
});

test("without a view that can show it, a step sent ahead to the player alone is asked of Python", async () => {
  const [model, el] = await player({ channel: "c2", ahead: { 4: ["step 4 / 5", false] } });
  el.querySelector('[data-cmd="forward"]').click();  // no view listens on c2
  assert.equal(el.querySelector(".bv-player").dataset.step, "3");
  assert.deepEqual(model.sent.map(({ cmd }) => cmd), ["forward"]);
});
