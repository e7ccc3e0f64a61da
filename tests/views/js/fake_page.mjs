// What the page-module tests share: a DOM (jsdom) set up as the globals a browser gives a module, and
// a model with anywidget's interface (get, set, save_changes, send, on) that a test changes as Python would.
import { createRequire } from "node:module";

const { JSDOM } = createRequire(import.meta.url)("jsdom");
const { window } = new JSDOM("<!DOCTYPE html><body></body>");
Object.assign(globalThis, { window, document: window.document, Option: window.Option, CustomEvent: window.CustomEvent,
                            FocusEvent: window.FocusEvent, requestAnimationFrame: (fn) => setTimeout(fn, 1) });

export class Model {
  constructor(state) { this.state = { ...state }; this.sent = []; this.saved = 0; this.handlers = []; }
  get(name) { return this.state[name]; }
  set(name, value) { this.state[name] = value; }
  save_changes() { this.saved += 1; }
  send(content) { this.sent.push(content); }
  on(events, handler) { for (const event of events.split(" ")) this.handlers.push([event, handler]); }
  change(name, value) {  // what anywidget does when Python changes a trait
    this.state[name] = value;
    for (const [event, handler] of this.handlers) if (event === `change:${name}`) handler();
  }
  message(content) { for (const [event, handler] of this.handlers) if (event === "msg:custom") handler(content); }
}
