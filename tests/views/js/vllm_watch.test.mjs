// The vLLM watch's page module (blockviz/views/js/vllm_watch.js) in a DOM (jsdom): it places what
// Python rendered, says it is waiting before the first batch, and shows a problem only when there is one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Model } from "./fake_page.mjs";

const { default: widget } = await import("../../../blockviz/views/js/vllm_watch.js");

test("it waits, then shows the forest, the order, the counters and a problem", () => {
  const model = new Model({ forest: "", evictions: "<ol></ol>", counters: "<span>cached blocks: 0</span>",
                            problem: "", step: 0, strings: { waiting: "waiting for KV events…" } });
  const el = document.createElement("div");
  widget.render({ model, el });
  assert.match(el.querySelector(".bv-vllm-forest").textContent, /waiting for KV events/);
  assert.equal(el.querySelector(".bv-vllm-problem").hidden, true);
  model.change("forest", '<svg data-view="vllm-forest" data-step="3"></svg>');
  model.change("problem", "last problem: seq 4: not a KV-event batch");
  model.change("step", 3);
  assert.equal(el.querySelector("svg").dataset.step, "3");
  assert.equal(el.querySelector(".bv-vllm").dataset.step, "3");
  assert.equal(el.querySelector(".bv-vllm-problem").hidden, false);
  assert.match(el.querySelector(".bv-vllm-problem").textContent, /not a KV-event batch/);
});
