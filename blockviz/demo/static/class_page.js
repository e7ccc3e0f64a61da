// The class page: one server-sent-events stream from the demo's class server; a "full" message
// draws everything, each "patch" changes what changed (the pool cell by cell, with the views' own
// patch protocol). A patch for another version than the one shown means this page missed one: it
// reconnects and starts from a full one. Every text the server sends as HTML is escaped there;
// text this script sets uses textContent. `env` holds what the page uses from the browser, so
// tests can run it in jsdom (tests/demo/js/).
import { applyPatch, showFull } from "../../views/js/pool_patch.js";

const PARTS = { header: "bv-header", status: "bv-status", totals: "bv-totals", table: "bv-table",
                events: "bv-events", chain: "bv-chain", radix: "bv-radix", mapping: "bv-mapping" };
const STRIP_MAX = 256;  // pools up to this many cells get the phone's strip; larger ones are already compact

// The pool as a strip of chips for a narrow screen (class.css shows it there instead of the picture):
// one chip per cell of the picture, its number and glyph in the picture's own colours, the cell's
// whole label as its title; the legend's swatches and counts after them. Built from the picture
// after each message, so it shows what the picture shows and nothing else.
export function drawStrip(strip, pane, document) {
  const cells = pane.querySelectorAll('[data-part="cells"] > [data-block-id]');
  if (cells.length > STRIP_MAX) return false;
  const chip = (fill, ink, words, title) => {
    const el = document.createElement("span");
    el.className = "bv-chip";
    el.style.background = fill;
    el.style.color = ink;
    el.textContent = words;
    if (title) el.title = title;
    return el;
  };
  const chips = document.createElement("div"), legend = document.createElement("div");
  chips.className = "bv-chips";
  legend.className = "bv-strip-legend";
  // each state's glyph as text, from the projector's legend (its cells draw theirs as shapes); a
  // larger pool's picture has none, and its cells' second line (their state) stands in
  const glyphs = {};
  for (const swatch of pane.querySelectorAll('[data-part="legend"] > rect[data-state]')) {
    if (swatch.nextElementSibling) glyphs[swatch.dataset.state] = swatch.nextElementSibling.textContent;
  }
  for (const cell of cells) {
    const [number, second] = cell.querySelectorAll("text");
    const mark = glyphs[cell.dataset.state] ?? (second ? second.textContent : "");
    const item = chip(cell.querySelector("rect").getAttribute("fill"), number.getAttribute("fill"),
                      `${number.textContent} ${mark}`.trim(), cell.getAttribute("aria-label"));
    item.dataset.blockId = cell.dataset.blockId;
    item.dataset.state = cell.dataset.state;
    chips.append(item);
  }
  for (const swatch of pane.querySelectorAll('[data-part="legend"] > rect')) {
    const glyph = swatch.nextElementSibling, name = glyph && glyph.nextElementSibling;
    if (!name) continue;
    const entry = document.createElement("span");
    entry.append(chip(swatch.getAttribute("fill"), glyph.getAttribute("fill"), glyph.textContent), ` ${name.textContent}`);
    legend.append(entry);
  }
  strip.replaceChildren(chips, legend);
  return true;
}


export function classPage({ document, EventSource, fetch, now = () => Date.now() / 1000, motion = true,
                            frame = (f) => f(), prefersDark = () => false }) {
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
    document.body.dataset.strip = drawStrip($("bv-strip"), pane, document) ? "on" : "off";
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
    // the teacher's kernel left: say so over the last picture it sent; before any picture the page
    // keeps saying what it waits for (the teacher opening the lab and pressing Generate)
    source.addEventListener("offline", () => { $("bv-offline").hidden = pool === null; });
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

  // light and dark in turn, starting from the one shown (the system's until the first press), so
  // every press changes the page
  $("bv-theme").addEventListener("click", () => {
    const shownNow = document.body.dataset.theme || (prefersDark() ? "dark" : "light");
    document.body.dataset.theme = shownNow === "dark" ? "light" : "dark";
  });
  return seen;
}
