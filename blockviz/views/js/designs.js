// The designs view (views/designs_widget.py): the table of what nano-vllm and SGLang hit, recomputed
// and evicted for each request, a selector (the rows, a slider, ◀ ▶), and for the request selected
// each design's cache after it side by side: nano-vllm's pool (whole once, then patched: pool_patch.js)
// next to SGLang's tree and token pool. Every picture and the table come from Python, escaped there.
// Python sends the requests either side ahead (`ahead`): ◀ ▶ show one at once when its patch starts
// from the pool shown, then tell Python, whose patch for the move (the same) the page finds old.
import { applyPatch, showFull } from "./pool_patch.js";

// Asks Python for request `i` (kept within the requests there are).
export function select(model, i) {
  const count = model.get("count");
  const next = Math.min(Math.max(0, Math.round(i)), count - 1);
  if (next === model.get("selected")) return;
  model.set("selected", next);
  model.save_changes();
}

// Marks the selected request's row and keeps it in view; the controls follow.
export function showSelected(parts, model) {
  const i = model.get("selected");
  for (const row of parts.table.querySelectorAll("tr[data-request]")) {
    const on = +row.dataset.request === i;
    row.classList.toggle("bv-selected", on);
    row.setAttribute("aria-selected", String(on));
    if (on && row.scrollIntoView) row.scrollIntoView({ block: "nearest" });
  }
  if (parts.slider.value !== String(i)) parts.slider.value = String(i);
  const names = (model.get("labels") || {}).names || [];
  parts.name.textContent = `${(model.get("labels") || {}).request || "request"} ${names[i] ?? i + 1}`;
  parts.previous.disabled = i <= 0;
  parts.next.disabled = i >= model.get("count") - 1;
}

// Scrolls SGLang's column (not the page) to the request's first marked tree row.
export function toFirstMark(side) {
  const row = side.querySelector(".bv-radix-node[data-mark]");
  if (!row) return;
  const offset = row.getBoundingClientRect().top - side.getBoundingClientRect().top;
  side.scrollTop = Math.max(0, side.scrollTop + offset - 60);
}

function button(text, title, onClick) {
  const b = document.createElement("button");
  Object.assign(b, { type: "button", textContent: text, title });
  b.setAttribute("aria-label", title);
  b.addEventListener("click", onClick);
  return b;
}

function render({ model, el }) {
  const labels = model.get("labels") || {};
  const root = document.createElement("div");
  root.className = "bv-designs-view";
  const controls = document.createElement("div");
  controls.className = "bv-designs-controls";
  const slider = document.createElement("input");
  Object.assign(slider, { type: "range", min: "0", max: String(model.get("count") - 1), step: "1" });
  slider.setAttribute("aria-label", labels.request || "request");
  slider.addEventListener("input", () => select(model, Number(slider.value)));
  const previous = button("◀", labels.previous || "previous", () => move(-1));
  const next = button("▶", labels.next || "next", () => move(1));
  const name = document.createElement("span");
  name.className = "bv-designs-name";
  controls.append(previous, slider, next, name);
  const table = document.createElement("div");
  table.className = "bv-designs-table";
  table.innerHTML = model.get("table");
  table.addEventListener("click", (event) => {
    const row = event.target.closest && event.target.closest("tr[data-request]");
    if (row) select(model, +row.dataset.request);
  });
  const summary = document.createElement("div");
  const sides = document.createElement("div");
  sides.className = "bv-designs-sides";
  const nano = document.createElement("div");
  nano.className = "bv-designs-side";
  nano.dataset.design = "nano-vllm";
  const sglang = document.createElement("div");
  sglang.className = "bv-designs-side";
  sglang.dataset.design = "sglang";
  sides.append(nano, sglang);
  root.append(controls, table, summary, sides);
  el.append(root);

  const parts = { table, slider, previous, next, name };
  let page = null, ahead = new Map();
  const written = new Map();   // what each part was last given: the same markup again is not parsed again
  // SGLang's column scrolls in the next frame, not now: reading the layout now would lay the page out
  // once more, before the pool's patch that comes with the same answer (a jump's)
  let scrolling = false;
  const scrollToMark = () => {
    if (scrolling) return;
    scrolling = true;
    requestAnimationFrame(() => { scrolling = false; toFirstMark(sglang); });
  };
  const write = (part, html) => {
    if (written.get(part) === html) return;
    part.innerHTML = html;
    written.set(part, html);
    if (part === sglang) scrollToMark();
  };
  // which requests sent ahead the page can show at once (for tests and pages to read)
  const ready = () => {
    root.dataset.ahead = [...ahead.values()].filter((e) => page && e.patch.base === page.version)
      .map((e) => e.request).join(" ");
  };
  const move = (delta) => {
    const i = model.get("selected") + delta, entry = ahead.get(i);
    if (entry && page && entry.patch.base === page.version && applyPatch(page, entry.patch) === "applied") {
      write(summary, entry.summary);
      write(sglang, entry.sglang);
    }
    select(model, i);
    showSelected(parts, model);
    ready();
  };
  const drawFull = () => {
    const full = model.get("full");
    if (full && full.svg) page = showFull(nano, full);
    ready();
  };
  const patch = () => {
    const next = JSON.parse(model.get("patch"));
    if (next.version === undefined) return;
    if (page === null || applyPatch(page, next) === "missed") model.send({ full: true });
    ready();
  };
  const readAhead = () => {
    ahead = new Map(JSON.parse(model.get("ahead") || "[]").map((entry) => [entry.request, entry]));
    ready();
  };
  const update = () => showSelected(parts, model);
  model.on("change:selected", update);
  model.on("change:table", () => { table.innerHTML = model.get("table"); update(); });
  model.on("change:summary", () => write(summary, model.get("summary")));
  model.on("change:sglang", () => write(sglang, model.get("sglang")));
  model.on("change:full", drawFull);
  model.on("change:patch", patch);
  model.on("change:ahead", readAhead);
  write(summary, model.get("summary"));
  write(sglang, model.get("sglang"));
  readAhead();
  drawFull();
  patch();   // a page opened late: its `full` is old, so the latest patch misses and it asks again
  update();
}
export default { render };
