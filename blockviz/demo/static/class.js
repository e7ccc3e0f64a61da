// The class page: one server-sent-events stream from the demo's class server; a "full" message
// draws everything, each "patch" changes what changed (the pool cell by cell). A patch for another
// version than the one shown means this page missed one: it reconnects and starts from a full one.
// Every text the server sends as HTML is escaped there; text this script sets uses textContent.
import { applyPatch, showFull } from "../views/pool_patch.js";  // the views' module: one patch protocol

const $ = (id) => document.getElementById(id);
const PARTS = { header: "bv-header", status: "bv-status", totals: "bv-totals", table: "bv-table",
                events: "bv-events", chain: "bv-chain", mapping: "bv-mapping" };
const pane = $("bv-pool");
const motion = !window.matchMedia("(prefers-reduced-motion: reduce)").matches;
let pool = null;  // the page state of the views' pool_patch.js
const seen = { latencies: [], messages: 0, reconnects: 0 };  // read by the tests and bench/demo.py
window.bvClass = seen;

function showParts(parts) {
  for (const [name, html] of Object.entries(parts || {})) {
    const el = $(PARTS[name]);
    if (el) el.innerHTML = html;
  }
}

function showPromptForm(open) {
  $("bv-prompt").hidden = !open;
}

function shown(message) {
  document.body.dataset.version = String(message.version);
  document.body.dataset.step = String(message.step);
  showPromptForm(message.prompts);
  seen.messages += 1;
  // how far behind the engine: it stamped the message when it sent it (same clock on one machine)
  requestAnimationFrame(() => {
    seen.latencies.push(Date.now() / 1000 - message.time);
    if (seen.latencies.length > 2000) seen.latencies.splice(0, 1000);
  });
}

let source = null;
function connect() {
  source = new EventSource("events");
  source.addEventListener("full", (e) => {
    const message = JSON.parse(e.data);
    pool = showFull(pane, { version: message.version, svg: message.pool });
    showParts(message.parts);
    shown(message);
  });
  source.addEventListener("patch", (e) => {
    const message = JSON.parse(e.data);
    const applied = pool && applyPatch(pool, { ...message.pool, base: message.base, version: message.version },
                                       { motion });
    if (applied !== "applied") {
      if (applied !== "old") { seen.reconnects += 1; source.close(); connect(); }  // missed one: start afresh
      return;
    }
    showParts(message.parts);
    shown(message);
  });
}
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

const themes = ["auto", "light", "dark"];
$("bv-theme").addEventListener("click", () => {
  const next = themes[(themes.indexOf(document.body.dataset.theme || "auto") + 1) % themes.length];
  document.body.dataset.theme = next;
  $("bv-theme").dataset.theme = next;
});
