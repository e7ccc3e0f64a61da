// The class page: one server-sent-events stream from the demo's class server; a "full" message
// draws everything, each "patch" changes what changed (the pool cell by cell, with the views' own
// patch protocol). A patch for another version than the one shown means this page missed one: it
// reconnects and starts from a full one. Every text the server sends as HTML is escaped there;
// text this script sets uses textContent. `env` holds what the page uses from the browser, so
// tests can run it in jsdom (tests/demo/js/).
import { applyPatch, showFull } from "../../views/js/pool_patch.js";

const PARTS = { header: "bv-header", status: "bv-status", totals: "bv-totals", table: "bv-table",
                events: "bv-events", chain: "bv-chain", mapping: "bv-mapping" };
const THEMES = ["auto", "light", "dark"];

export function classPage({ document, EventSource, fetch, now = () => Date.now() / 1000, motion = true,
                            frame = (f) => f() }) {
  const $ = (id) => document.getElementById(id);
  const pane = $("bv-pool");
  // read by the tests and bench/demo.py: seconds from the engine's stamp to arriving here and to
  // being drawn, and milliseconds of this script's work per message
  const seen = { arrivals: [], latencies: [], work: [], messages: 0, reconnects: 0 };
  const keep = (list, value) => { list.push(value); if (list.length > 2000) list.splice(0, 1000); };
  let pool = null;  // the page state of pool_patch.js
  let source = null;

  const shown = (message, arrived, started) => {
    for (const [name, html] of Object.entries(message.parts || {})) {
      const el = $(PARTS[name]);
      if (el) el.innerHTML = html;
    }
    document.body.dataset.version = String(message.version);
    document.body.dataset.step = String(message.step);
    $("bv-prompt").hidden = !message.prompts;
    $("bv-offline").hidden = true;
    seen.messages += 1;
    keep(seen.arrivals, arrived - message.time);
    keep(seen.work, performance.now() - started);
    frame(() => keep(seen.latencies, now() - message.time));  // drawn: the next frame after this one
  };

  const connect = () => {
    source = new EventSource("events");
    source.addEventListener("full", (e) => {
      const arrived = now(), started = performance.now();
      const message = JSON.parse(e.data);
      pool = showFull(pane, { version: message.version, svg: message.pool });
      shown(message, arrived, started);
    });
    source.addEventListener("offline", () => { $("bv-offline").hidden = false; });  // the teacher's kernel left
    source.addEventListener("patch", (e) => {
      const arrived = now(), started = performance.now();
      const message = JSON.parse(e.data);
      const result = pool ? applyPatch(pool, { ...message.pool, base: message.base, version: message.version },
                                       { motion }) : "missed";
      if (result === "applied") shown(message, arrived, started);
      else if (result === "missed") { seen.reconnects += 1; source.close(); connect(); }  // start afresh
    });
  };
  connect();

  $("bv-prompt").addEventListener("submit", async (e) => {
    e.preventDefault();
    const input = $("bv-prompt-text"), answer = $("bv-prompt-answer");
    let text;
    try {
      const response = await fetch("prompt", { method: "POST", headers: { "Content-Type": "application/json" },
                                               body: JSON.stringify({ text: input.value }) });
      text = (await response.json()).message;
      if (response.ok) input.value = "";
    } catch (err) {
      text = String(err);
    }
    answer.textContent = text;
  });

  $("bv-theme").addEventListener("click", () => {
    const next = THEMES[(THEMES.indexOf(document.body.dataset.theme || "auto") + 1) % THEMES.length];
    document.body.dataset.theme = next;
  });
  return seen;
}
