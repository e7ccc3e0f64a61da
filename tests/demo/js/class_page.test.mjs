// The class page's script (blockviz/demo/static/class_page.js) in jsdom, fed a real engine's
// messages (BV_CLASS_FIXTURE, written by tests/demo/test_js.py) through a stand-in EventSource.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

import { classPage } from "../../../blockviz/demo/static/class_page.js";

const { JSDOM } = createRequire(import.meta.url)("jsdom");
const fixture = JSON.parse(readFileSync(process.env.BV_CLASS_FIXTURE, "utf8"));

class FakeSource {
  static all = [];
  constructor(url) { this.url = url; this.listeners = {}; this.closed = false; FakeSource.all.push(this); }
  addEventListener(kind, f) { this.listeners[kind] = f; }
  close() { this.closed = true; }
  send(message) { this.listeners[message.type]({ data: JSON.stringify(message) }); }
}

function open(fetch = async () => ({ ok: true, json: async () => ({ message: "queued" }) }), prefersDark = () => false) {
  const { window } = new JSDOM(fixture.page);
  FakeSource.all = [];
  const seen = classPage({ document: window.document, EventSource: FakeSource, fetch, now: () => 1e12, motion: false,
                           prefersDark });
  return { window, document: window.document, seen, source: () => FakeSource.all.at(-1) };
}

const states = (document) => [...document.querySelectorAll("#bv-pool [data-block-id]")].map((e) => e.dataset.state);

test("every message leaves the engine's states on the page, at its step", () => {
  const { document, source } = open();
  for (const { message, states: expected } of fixture.messages) {
    source().send(message);
    assert.deepEqual(states(document), expected);
    assert.equal(document.querySelector("#bv-pool svg").dataset.step, String(message.step));
    assert.equal(document.body.dataset.version, String(message.version));
  }
  assert.equal(FakeSource.all.length, 1);  // no patch was missed
});

test("the parts are drawn, and user text in them stays text", () => {
  const { document, source } = open();
  fixture.messages.forEach(({ message }) => source().send(message));
  assert.match(document.getElementById("bv-table").textContent, /<b>bold<\/b>/);
  assert.equal(document.querySelectorAll("#bv-table b").length, 0);
  assert.match(document.getElementById("bv-status").textContent, /step/);
  // the views' pictures at the projector's layout, each in its panel
  assert.ok(document.querySelector('#bv-events > svg[data-view="events"] [data-kind]'));
  assert.ok(document.querySelector('#bv-chain > svg[data-view="chain"] [data-outcome]'));
  assert.ok(document.querySelector('#bv-mapping > svg[data-view="mapping"] [data-slot]'));
});

test("under sglang the radix tree of each message's step stands where the hash chain would", () => {
  const { document, source } = open();
  let grew = false;
  for (const { message, states: expected, nodes } of fixture.sglang) {
    source().send(message);
    assert.deepEqual(states(document), expected);
    const tree = document.querySelector('#bv-radix > svg[data-view="radix"]');
    assert.equal(tree.dataset.step, String(message.step));
    assert.deepEqual([...tree.querySelectorAll("[data-node]")].map((e) => +e.dataset.node), nodes);
    assert.equal(document.getElementById("bv-chain").innerHTML, "");
    grew ||= nodes.length > 1;
  }
  assert.ok(grew);
  assert.equal(FakeSource.all.length, 1);  // every patch applied
  assert.doesNotMatch(document.getElementById("bv-radix").innerHTML, /<b>bold/);
});

test("under nano-vllm the radix panel stays empty", () => {
  const { document, source } = open();
  fixture.messages.forEach(({ message }) => source().send(message));
  assert.equal(document.getElementById("bv-radix").innerHTML, "");
});

test("a missed patch makes the page start afresh from a full message", () => {
  const { document, source, seen } = open();
  const [first, , third] = fixture.messages.map((m) => m.message);
  source().send(first);
  const before = source();
  source().send(third);  // the second never came
  assert.equal(before.closed, true);
  assert.equal(FakeSource.all.length, 2);
  assert.equal(seen.reconnects, 1);
  assert.equal(document.body.dataset.version, String(first.version));  // nothing half-applied
});

test("the prompt form follows the teacher's switch and posts JSON; the answer is text", async () => {
  let posted = null;
  const hostile = "<img src=x onerror=alert(1)>";
  const { window, document, source } = open(async (url, init) => {
    posted = { url, init };
    return { ok: false, json: async () => ({ message: hostile }) };
  });
  const messages = fixture.messages.map((m) => m.message);
  source().send(messages[0]);
  assert.equal(document.getElementById("bv-prompt").hidden, true);  // off by default
  const open_ = messages.findIndex((m) => m.prompts);
  messages.slice(1, open_ + 1).forEach((m) => source().send(m));
  assert.equal(document.getElementById("bv-prompt").hidden, false);
  document.getElementById("bv-prompt-text").value = "hello";
  document.getElementById("bv-prompt").dispatchEvent(new window.Event("submit", { cancelable: true }));
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(posted.url, "prompt");
  assert.equal(posted.init.headers["Content-Type"], "application/json");
  assert.deepEqual(JSON.parse(posted.init.body), { text: "hello" });
  assert.equal(document.getElementById("bv-prompt-answer").textContent, hostile);
  assert.equal(document.querySelectorAll("#bv-prompt img").length, 0);
});

test("a page says when the teacher's engine has gone, until it is back", () => {
  const { document, source } = open();
  const [first, second] = fixture.messages.map((m) => m.message);
  source().send(first);
  assert.equal(document.getElementById("bv-offline").hidden, true);
  source().listeners.offline({ data: "{}" });
  assert.equal(document.getElementById("bv-offline").hidden, false);
  source().send(second);
  assert.equal(document.getElementById("bv-offline").hidden, true);
});

test("before the teacher's first picture the page says what it waits for, never 'not connected'", () => {
  const { document, source } = open();
  const waiting = document.getElementById("bv-status").textContent;
  assert.match(waiting, /▶/);  // the teacher presses ▶ Generate (in the page's language)
  source().listeners.offline({ data: "{}" });  // a kernel that connected and left before drawing anything
  assert.equal(document.getElementById("bv-offline").hidden, true);
  assert.equal(document.getElementById("bv-status").textContent, waiting);
  source().send(fixture.messages[0].message);
  source().listeners.offline({ data: "{}" });
  assert.equal(document.getElementById("bv-offline").hidden, false);  // now there is a last picture to speak of
});

test("every press of the theme button changes the page, the first from the system's theme", () => {
  for (const [system, expected] of [[false, ["dark", "light", "dark"]], [true, ["light", "dark", "light"]]]) {
    const { document } = open(undefined, () => system);
    const button = document.getElementById("bv-theme");
    const seen = [];
    for (let i = 0; i < 3; i++) { button.click(); seen.push(document.body.dataset.theme); }
    assert.deepEqual(seen, expected);
  }
});

test("the phone's strip has a chip per block in the picture's colours, and the legend's counts", () => {
  const { document, source } = open();
  for (const { message, states: expected } of fixture.messages) {
    source().send(message);
    assert.equal(document.body.dataset.strip, "on");
    const chips = [...document.querySelectorAll("#bv-strip .bv-chips .bv-chip")];
    assert.deepEqual(chips.map((c) => c.dataset.state), expected);
    const cells = [...document.querySelectorAll('#bv-pool [data-part="cells"] > [data-block-id]')];
    chips.forEach((chip, i) => {
      assert.equal(chip.dataset.blockId, cells[i].dataset.blockId);
      assert.match(chip.textContent, new RegExp(`^#${cells[i].dataset.blockId}\\b`));
      const swatch = document.querySelector(`#bv-pool [data-part="legend"] > rect[data-state="${chip.dataset.state}"]`);
      assert.ok(chip.textContent.endsWith(` ${swatch.nextElementSibling.textContent}`));  // the state's glyph
      assert.equal(chip.title, cells[i].getAttribute("aria-label"));
      assert.ok(chip.style.background && chip.style.color);
    });
  }
  const entries = [...document.querySelectorAll("#bv-strip .bv-strip-legend > span")];
  assert.ok(entries.length >= 3);
  const counted = entries.reduce((sum, e) => sum + Number(e.textContent.match(/(\d+)$/)[1]), 0);
  assert.equal(counted, document.querySelectorAll("#bv-strip .bv-chips .bv-chip").length);  // every block counted once
});
