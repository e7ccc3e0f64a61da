// The designs view's page module (blockviz/views/js/designs.js) in a DOM (jsdom): a request is chosen
// by its row, the slider or ◀ ▶ (sent to Python, kept within the requests there are), the controls
// follow the request Python shows, and a pool patch on another base makes the page ask for the pool whole.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Model } from "./fake_page.mjs";

const { default: widget, select } = await import("../../../blockviz/views/js/designs.js");

const TABLE = '<table class="bv-designs"><tr><th>request</th></tr>'
  + [0, 1, 2].map((i) => `<tr data-request="${i}"><td>r${i}</td></tr>`).join("") + "</table>";
const POOL = '<svg data-view="pool"><g data-part="head"></g><g data-part="touched"></g><g data-part="cells">'
  + '<g data-block-id="0" data-state="free"><rect/></g><g data-block-id="1" data-state="free"><rect/></g></g>'
  + '<g data-part="legend"></g></svg>';

function shown(state = {}) {
  const model = new Model({ table: TABLE, count: 3, selected: 0, summary: '<div class="bv-designs-summary"></div>',
                            full: { version: 1, svg: POOL }, patch: "{}", sglang: "<svg data-view=\"radix\"></svg>",
                            labels: { request: "request", previous: "previous request", next: "next request",
                                      names: ["a", "b", "c"] }, ...state });
  const el = document.createElement("div");
  widget.render({ model, el });
  return { model, el };
}

test("a row, the slider and the buttons send the request chosen", () => {
  const { model, el } = shown();
  el.querySelector('tr[data-request="2"] td').click();
  assert.equal(model.get("selected"), 2);
  assert.equal(model.saved, 1);
  model.change("selected", 2);
  assert.equal(el.querySelector('button[aria-label="next request"]').disabled, true);
  el.querySelector('button[aria-label="previous request"]').click();
  assert.equal(model.get("selected"), 1);
  const slider = el.querySelector('input[type="range"]');
  assert.equal(slider.max, "2");
  slider.value = "0";
  slider.dispatchEvent(new window.Event("input"));
  assert.equal(model.get("selected"), 0);
  assert.equal(model.saved, 3);
});

test("a choice outside the requests is kept within them, and the same one sends nothing", () => {
  const { model } = shown();
  select(model, 7);
  assert.equal(model.get("selected"), 2);
  select(model, 2);
  select(model, -3);
  assert.equal(model.get("selected"), 0);
  assert.equal(model.saved, 2);
});

test("the controls and the row follow the request Python shows", () => {
  const { model, el } = shown();
  model.change("selected", 1);
  assert.deepEqual([...el.querySelectorAll("tr[data-request]")].map((r) => r.getAttribute("aria-selected")),
                   ["false", "true", "false"]);
  assert.equal(el.querySelector('input[type="range"]').value, "1");
  assert.equal(el.querySelector(".bv-designs-name").textContent, "request b");
  model.change("summary", '<div class="bv-designs-summary" data-request="1"></div>');
  assert.equal(el.querySelector(".bv-designs-summary").dataset.request, "1");
  model.change("sglang", '<svg data-view="radix" data-step="1"></svg>');
  assert.equal(el.querySelector('[data-design="sglang"] svg').dataset.step, "1");
});

test("the pool is patched; a patch on another base asks for the pool whole", () => {
  const { model, el } = shown();
  model.change("patch", JSON.stringify({ base: 1, version: 2, cells: [[1, { "data-block-id": "1", "data-state": "free",
                                                                          "data-mark": "hit" }, null]] }));
  assert.equal(el.querySelector('[data-design="nano-vllm"] g[data-block-id="1"]').dataset.mark, "hit");
  assert.deepEqual(model.sent, []);
  model.change("patch", JSON.stringify({ base: 5, version: 6, cells: [] }));
  assert.deepEqual(model.sent, [{ full: true }]);
});

test("▶ shows the request sent ahead at once when its patch starts from the pool shown", () => {
  const entry = (request, base) => ({ request, summary: `<div class="bv-designs-summary" data-request="${request}"></div>`,
                                      sglang: `<svg data-view="radix" data-step="${request}"></svg>`,
                                      patch: { base, version: 9 + request, cells: [[0, { "data-block-id": "0",
                                               "data-state": "free", "data-mark": "hit" }, null]] } });
  const { model, el } = shown({ ahead: JSON.stringify([entry(1, 1), entry(2, 7)]) });
  assert.equal(el.querySelector(".bv-designs-view").dataset.ahead, "1");   // request 2's patch is on another base
  el.querySelector('button[aria-label="next request"]').click();
  assert.equal(model.get("selected"), 1);
  assert.equal(el.querySelector(".bv-designs-summary").dataset.request, "1");
  assert.equal(el.querySelector('[data-design="sglang"] svg').dataset.step, "1");
  assert.equal(el.querySelector('[data-design="nano-vllm"] g[data-block-id="0"]').dataset.mark, "hit");
  assert.equal(el.querySelector('tr[data-request="1"]').getAttribute("aria-selected"), "true");
  model.change("patch", JSON.stringify(entry(1, 1).patch));   // Python's patch for the move: the same, old now
  assert.deepEqual(model.sent, []);
  el.querySelector('button[aria-label="next request"]').click();   // request 2 was not sent ahead from here
  assert.equal(model.get("selected"), 2);
  assert.equal(el.querySelector(".bv-designs-summary").dataset.request, "1");   // it waits for Python
});
