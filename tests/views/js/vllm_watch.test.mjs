// The vLLM watch's page module (blockviz/views/js/vllm_watch.js) in a DOM (jsdom): it places what
// Python rendered, says it is waiting before the first batch, and shows a problem only when there is one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const { JSDOM } = createRequire(import.meta.url)("jsdom");
const { window } = new JSDOM("<!DOCTYPE html><body></body>");
globalThis.document = window.document;
const { default: widget } = await import("../../../blockviz/views/js/vllm_watch.js");

function fakeModel(values) {
  const handlers = {};
  return {
    get: (name) => values[name],
    on: (events, fn) => { for (const e of events.split(" ")) handlers[e] = fn; },
    set(name, value) { values[name] = value; handlers[`change:${name}`]?.(); },
  };
}

test("it waits, then shows the forest, the order, the counters and a problem", () => {
  const model = fakeModel({ forest: "", evictions: "<ol></ol>", counters: "<span>cached blocks: 0</span>",
                            problem: "", step: 0, strings: { waiting: "waiting for KV events…" } });
  const el = document.createElement("div");
  widget.render({ model, el });
  assert.match(el.querySelector(".bv-vllm-forest").textContent, /waiting for KV events/);
  assert.equal(el.querySelector(".bv-vllm-problem").hidden, true);
  model.set("forest", '<svg data-view="vllm-forest" data-step="3"></svg>');
  model.set("problem", "last problem: seq 4: not a KV-event batch");
  model.set("step", 3);
  assert.equal(el.querySelector("svg").dataset.step, "3");
  assert.equal(el.querySelector(".bv-vllm").dataset.step, "3");
  assert.equal(el.querySelector(".bv-vllm-problem").hidden, false);
  assert.match(el.querySelector(".bv-vllm-problem").textContent, /not a KV-event batch/);
});
