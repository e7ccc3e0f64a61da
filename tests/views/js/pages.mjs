// A page for the Python tests (tests/views/jspage.py): renders widgets' real ES modules (their
// `_esm`, as anywidget gets it) in jsdom, each on a model with anywidget's interface, and applies
// pool patches with js/pool_patch.js. One JSON request a line on stdin, one JSON answer a line on
// stdout; every answer carries `out`, what the pages sent Python meanwhile (model.send, save_changes).
import { createInterface } from "node:readline";
import { createRequire } from "node:module";

import { applyPatch, showFull } from "../../../blockviz/views/js/pool_patch.js";
import { stepViews } from "../../../blockviz/views/js/step_ahead.js";

const { JSDOM } = createRequire(import.meta.url)("jsdom");
const { window } = new JSDOM("<!DOCTYPE html><body></body>");
window.matchMedia = () => ({ matches: false });  // motion on: jsdom has no Web Animations, so nothing moves
// the page draws its frames once it has handled each request: what waits for a frame runs then
const frames = [];
const requestAnimationFrame = (fn) => frames.push(fn);
const drawFrames = () => {
  for (let n = 0; frames.length && n < 10; n++) for (const fn of frames.splice(0)) fn();
};
Object.assign(globalThis, { window, document: window.document, CustomEvent: window.CustomEvent, Option: window.Option,
                            requestAnimationFrame });

let out = [];
const views = new Map();

class Model {
  constructor(id, state) { this.id = id; this.state = state; this.handlers = []; this.changed = {}; }
  get(name) { return this.state[name]; }
  set(name, value) { this.state[name] = value; this.changed[name] = value; }
  save_changes() { out.push({ id: this.id, state: this.changed }); this.changed = {}; }
  send(content) { out.push({ id: this.id, msg: content }); }
  on(events, handler) { for (const event of events.split(" ")) this.handlers.push([event, handler]); }
  fire(event, ...args) { for (const [name, handler] of this.handlers) if (name === event) handler(...args); }
}

// What a page shows, serialised as the DOM does (so markup written by Python compares equal).
const parsed = (svg) => { const box = document.createElement("div"); box.innerHTML = svg; return box.innerHTML; };

const commands = {
  async open({ id, esm, state }) {
    const { default: widget } = await import("data:text/javascript;base64," + Buffer.from(esm).toString("base64"));
    const model = new Model(id, state), el = document.createElement("div");
    document.body.append(el);
    views.set(id, { model, el, cleanup: await widget.render({ model, el }) });
    return {};
  },
  change({ id, name, value }) {
    const { model } = views.get(id);
    model.state[name] = value;
    model.fire(`change:${name}`);
    return {};
  },
  message({ id, content }) { views.get(id).model.fire("msg:custom", content, []); return {}; },
  html({ id, selector }) {
    const node = selector ? views.get(id).el.querySelector(selector) : views.get(id).el;
    return { html: node ? node.outerHTML : null };
  },
  attribute({ id, selector, name }) { return { value: views.get(id).el.querySelector(selector).getAttribute(name) }; },
  click({ id, selector }) { views.get(id).el.querySelector(selector).click(); return {}; },
  key({ id, selector, key }) {
    views.get(id).el.querySelector(selector).dispatchEvent(new window.KeyboardEvent("keydown", { key, bubbles: true }));
    return {};
  },
  parse({ markup }) { return { markup: parsed(markup) }; },
  step({ channel, step }) { return { shown: stepViews(window, channel, step) }; },
  close({ id }) {
    const { el, cleanup } = views.get(id);
    if (typeof cleanup === "function") cleanup();
    el.remove();
    views.delete(id);
    return {};
  },
  // A pool page drawn from `full`, then each patch applied in order: the result and the page after each,
  // beside each `expected` picture parsed as the page would.
  patches({ full, patches, expected }) {
    const el = document.createElement("div");
    const page = showFull(el, full);
    const results = [], pages = [];
    for (const patch of patches) {
      results.push(applyPatch(page, patch, { motion: true }));
      pages.push(el.innerHTML);
    }
    return { results, pages, expected: expected.map(parsed) };
  },
};

for await (const line of createInterface({ input: process.stdin })) {
  const request = JSON.parse(line);
  let answer;
  try {
    answer = await commands[request.command](request);
    drawFrames();
  } catch (error) {
    answer = { error: String(error && error.stack || error) };
  }
  process.stdout.write(JSON.stringify({ ...answer, out }) + "\n");
  out = [];
}
