// The pool's patch protocol (blockviz/views/js/pool_patch.js) in a DOM (jsdom, Debian's node-jsdom).
// Run by tests/views/test_js.py, which also hands over real pictures and patches from the engine
// (BV_POOL_FIXTURE); alone: NODE_PATH=/usr/share/nodejs node --test tests/views/js/
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

import { MOTION_MAX, MOTION_MS, applyPatch, prepare, setAttrs, showFull } from "../../../blockviz/views/js/pool_patch.js";

const { JSDOM } = createRequire(import.meta.url)("jsdom");
const { window } = new JSDOM("<!DOCTYPE html><body></body>");
const { document } = window;

const cell = (key, state, body = `<rect fill="#fff"></rect>`, queue = "-1") =>
  `<g data-block-id="${key}" data-state="${state}" data-queue="${queue}">${body}</g>`;
const pool = (cells, step = 0) =>
  `<svg data-view="pool" data-step="${step}"><g data-part="head">step ${step}</g><g data-part="touched"></g>` +
  `<g data-part="cells">${cells.join("")}</g><g data-part="legend">legend</g></svg>`;

// What a page shows, serialised as the DOM does (so markup written by Python compares equal).
const parsed = (svg) => { const box = document.createElement("div"); box.innerHTML = svg; return box.innerHTML; };
const page = (svg, version = 1) => {
  const el = document.createElement("div");
  return [el, showFull(el, { version, svg })];
};

test("a patch on the version shown changes attributes, bodies, head, outlines, legend and root", () => {
  const [el, shown] = page(pool([cell(0, "free"), cell(1, "free"), cell(2, "free")]));
  const result = applyPatch(shown, {
    base: 1, version: 2, root: { "data-view": "pool", "data-step": "1" }, head: "step 1", legend: "new legend",
    touched: `<path d="M0 0 L1 0 Z"></path>`,
    cells: [[1, { "data-block-id": "1", "data-state": "cached", "data-queue": "-1" }, `<rect fill="#000"></rect>`],
            [2, null, "<text>x</text>"]],
  });
  assert.equal(result, "applied");
  assert.equal(shown.version, 2);
  assert.equal(el.innerHTML, parsed(`<svg data-view="pool" data-step="1"><g data-part="head">step 1</g>` +
    `<g data-part="touched"><path d="M0 0 L1 0 Z"></path></g><g data-part="cells">${cell(0, "free")}${cell(1, "cached", `<rect fill="#000"></rect>`)}` +
    `<g data-block-id="2" data-state="free" data-queue="-1"><text>x</text></g></g>` +
    `<g data-part="legend">new legend</g></svg>`));
});

test("a changed body keeps the elements of the same name, with the new attributes in the new order", () => {
  const body = `<rect x="1" fill="#fff"></rect><circle r="5" fill="none" stroke="#000"></circle><path d="M0 0"></path>`;
  const [el, shown] = page(pool([cell(0, "free", body)]));
  const [rect, circle] = el.querySelectorAll('[data-block-id="0"] > *');
  const next = `<rect x="1" fill="#00825E"></rect><circle stroke="#fff" r="6" fill="#fff"></circle>text`;
  assert.equal(applyPatch(shown, { base: 1, version: 2, cells: [[0, null, next]] }), "applied");
  assert.equal(el.innerHTML, parsed(pool([cell(0, "free", next)])));  // the path is gone, a text node came
  const [rect2, circle2] = el.querySelectorAll('[data-block-id="0"] > *');
  assert.equal(rect2, rect);  // kept: the browser repaints it rather than laying out a new one
  assert.equal(circle2, circle);
  const swapped = `<circle r="6"></circle><rect x="1"></rect>`;  // elements of other names are replaced
  assert.equal(applyPatch(shown, { base: 2, version: 3, cells: [[0, null, swapped]] }), "applied");
  assert.equal(el.innerHTML, parsed(pool([cell(0, "free", swapped)])));
  assert.notEqual(el.querySelector('[data-block-id="0"] > rect'), rect);
});

test("a cell's edits change values in place: attributes, and the text of an element holding only text", () => {
  const body = `<rect x="1" fill="#fff"></rect><text x="2">#0</text><path d="M0 0Z" fill="#000"></path>`;
  const [el, shown] = page(pool([cell(0, "free", body)]));
  const before = [...el.querySelectorAll('[data-block-id="0"] *')];
  const edits = [[0, "fill", "#00825E"], [1, "", "a < b & “c”"], [2, "d", "M1 1Z"], [2, "fill", "#fff"]];
  assert.equal(applyPatch(shown, { base: 1, version: 2, cells: [[0, null, edits]] }), "applied");
  const next = `<rect x="1" fill="#00825E"></rect><text x="2">a &lt; b &amp; “c”</text>` +
    `<path d="M1 1Z" fill="#fff"></path>`;
  assert.equal(el.innerHTML, parsed(pool([cell(0, "free", next)])));
  assert.deepEqual([...el.querySelectorAll('[data-block-id="0"] *')], before);  // the same elements
});

test("a page that missed a patch asks for the full picture; an old patch is ignored", () => {
  const [el, shown] = page(pool([cell(0, "free")]), 5);
  const before = el.innerHTML;
  assert.equal(applyPatch(shown, { base: 6, version: 7, cells: [] }), "missed");
  assert.equal(applyPatch(shown, { base: 3, version: 4, cells: [[0, null, "gone"]] }), "old");
  assert.equal(el.innerHTML, before);
  assert.equal(shown.version, 5);
});

test("a patch naming a cell the page lacks changes nothing and asks for the full picture", () => {
  const [el, shown] = page(pool([cell(0, "free"), cell(1, "free")]));
  const before = el.innerHTML;
  const result = applyPatch(shown, { base: 1, version: 2, head: "changed", cells: [[0, null, "x"], [9, null, "y"]] });
  assert.equal(result, "missed");
  assert.equal(el.innerHTML, before);
  assert.equal(applyPatch(shown, { base: 1, version: 2, cells: [], insert: [[5, {}, "", 7]] }), "missed");
});

test("cells are removed and inserted before the kept cell named, or at the end", () => {
  const [el, shown] = page(pool([cell(0, "free"), cell(1, "free", "", "1"), cell(64, "free")]));
  const result = applyPatch(shown, {
    base: 1, version: 2, cells: [], remove: [1],
    insert: [[1, { "data-block-id": "1", "data-state": "cached" }, "a", 64], [65, { "data-block-id": "65" }, "b", null]],
  });
  assert.equal(result, "applied");
  const keys = [...el.querySelectorAll('[data-part="cells"] > g')].map((node) => node.getAttribute("data-block-id"));
  assert.deepEqual(keys, ["0", "1", "64", "65"]);
  assert.equal(shown.cells.get(1).namespaceURI, "http://www.w3.org/2000/svg");
  // the page's map follows: a later patch finds the inserted cells
  assert.equal(applyPatch(shown, { base: 2, version: 3, cells: [[65, null, "c"]] }), "applied");
  assert.equal(shown.cells.get(65).innerHTML, "c");
});

test("a patch prepared ahead (its markup parsed) gives the same page, once; applied again it parses anew", () => {
  const svg = pool([cell(0, "free"), cell(1, "free", "", "1"), cell(64, "free")]);
  const patch = () => ({
    base: 1, version: 2, cells: [[0, { "data-block-id": "0", "data-state": "cached" }, `<rect fill="#000"></rect><text>●</text>`],
                                 [64, { "data-block-id": "64", "data-state": "filling" }, null]],
    remove: [1], insert: [[1, { "data-block-id": "1", "data-state": "cached" }, "<text>a</text>", 64]],
  });
  const [plain, plainPage] = page(svg);
  const [ready, readyPage] = page(svg);
  const prepared = patch();
  prepare(document, prepared);
  assert.equal(prepared.parsed.length, 3);
  assert.equal(applyPatch(plainPage, patch()), "applied");
  assert.equal(applyPatch(readyPage, prepared), "applied");
  assert.equal(ready.innerHTML, plain.innerHTML);
  assert.equal(prepared.parsed, null);  // used up
  const [again, againPage] = page(svg);
  assert.equal(applyPatch(againPage, prepared), "applied");
  assert.equal(again.innerHTML, plain.innerHTML);
});

test("setAttrs leaves exactly the attributes given, in their order, rewriting none before the first out of place", () => {
  const node = document.createElementNS("http://www.w3.org/2000/svg", "g");
  node.setAttribute("a", "1"); node.setAttribute("b", "2"); node.setAttribute("c", "3");
  const a = node.getAttributeNode("a");
  setAttrs(node, { a: "9", c: "3", d: "4" });
  assert.deepEqual(node.getAttributeNames(), ["a", "c", "d"]);
  assert.equal(node.getAttribute("a"), "9");
  assert.equal(node.getAttributeNode("a"), a);  // changed in place, not removed and added
  setAttrs(node, { c: "3", a: "9" });
  assert.deepEqual(node.getAttributeNames(), ["c", "a"]);
});

test("with motion, a cell fades to its new colour and a block leaving the free queue slides, markup unchanged", () => {
  const calls = [];
  window.Element.prototype.animate = function (keyframes, timing) { calls.push([this.tagName, keyframes, timing]); };
  try {
    const svg = pool([cell(0, "free", `<rect fill="#fff"></rect>`, "0"), cell(1, "free", `<rect fill="#fff"></rect>`, "1")]);
    const patch = { base: 1, version: 2, cells: [[0, { "data-block-id": "0", "data-state": "filling", "data-queue": "-1" },
                                                  `<rect fill="#ee0"></rect>`]] };
    const [moving, shownMoving] = page(svg);
    const [still, shownStill] = page(svg);
    applyPatch(shownMoving, patch, { motion: true });
    applyPatch(shownStill, JSON.parse(JSON.stringify(patch)));
    assert.equal(moving.innerHTML, still.innerHTML);
    assert.deepEqual(calls.map(([tag]) => tag.toLowerCase()), ["rect", "g"]);
    assert.deepEqual(calls[0][1], [{ fill: "#fff" }, { fill: "#ee0" }]);
    assert.ok(calls.every(([, , timing]) => timing.duration === MOTION_MS && MOTION_MS <= 300));
    calls.length = 0;
    applyPatch(shownStill, { base: 2, version: 3, cells: [[1, null, "<rect fill=\"#fff\"></rect>"]] }, { motion: true });
    assert.equal(calls.length, 0);  // same colour, still in the queue: nothing moves
    const many = Array.from({ length: MOTION_MAX + 1 }, (_, k) => cell(k, "free"));
    const [, shownMany] = page(pool(many));
    const all = { base: 1, version: 2, cells: many.map((_, k) => [k, { "data-block-id": String(k), "data-state": "cached" },
                                                                  `<rect fill="#082"></rect>`]) };
    assert.equal(applyPatch(shownMany, all, { motion: true }), "applied");
    assert.equal(calls.length, 0);  // a large prefill is not animated
  } finally {
    delete window.Element.prototype.animate;
  }
});

// Pictures and patches of real engine runs, made by tests/views/test_js.py.
const fixture = process.env.BV_POOL_FIXTURE;
test("the engine's patches, applied in order, give Python's picture of every step", { skip: !fixture && "no BV_POOL_FIXTURE" }, () => {
  for (const run of JSON.parse(readFileSync(fixture, "utf8"))) {
    const [el, shown] = page(run.full.svg, run.full.version);
    const [ready, readyShown] = page(run.full.svg, run.full.version);  // each patch prepared first
    for (const [k, { patch, svg }] of run.steps.entries()) {
      const prepared = structuredClone(patch);
      prepare(document, prepared);
      assert.equal(applyPatch(shown, patch, { motion: true }), "applied", `${run.name}, move ${k}`);
      assert.equal(applyPatch(readyShown, prepared, { motion: true }), "applied", `${run.name}, move ${k}`);
      assert.equal(el.innerHTML, parsed(svg), `${run.name}, move ${k}`);
      assert.equal(ready.innerHTML, el.innerHTML, `${run.name}, move ${k}, prepared`);
    }
  }
});
