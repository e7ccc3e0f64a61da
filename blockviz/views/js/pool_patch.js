// The pool's patch protocol, for any page that shows a pool: the anywidget view (pool.js) and a
// plain page such as the classroom's class page import these two functions.
//
// A page draws the whole pool from a full picture {version, svg}, then applies each patch
// {base, version, root?, head?, touched?, legend?, cells, remove?, insert?} (made by
// blockviz/views/pool_patch.py) whose base is the version it shows. A patch on any other base means
// the page missed one (it opened late, or a message was lost): applyPatch says "missed" and the page
// asks for the full picture again. Cells are the <g> elements of the cells part, keyed by their
// first block (data-block-id): one block, or in a large pool a folded run of idle blocks in one state.

export const MOTION_MS = 250;
// A step that changes more cells than this (a large prefill) is not animated: the eye cannot follow
// hundreds of blocks at once, and hundreds of animations would slow the page's next step.
export const MOTION_MAX = 64;
const SVG_NS = "http://www.w3.org/2000/svg";

// Draws `full` into `el`; returns the page state applyPatch works on.
export function showFull(el, full) {
  el.innerHTML = full.svg;
  const svg = el.firstElementChild;
  const part = (name) => [...svg.children].find((node) => node.getAttribute("data-part") === name);
  const group = part("cells");
  return {
    svg, group, head: part("head"), touched: part("touched"), legend: part("legend"), version: full.version,
    cells: new Map([...group.children].map((node) => [+node.getAttribute("data-block-id"), node])),
  };
}

// Parses the markup of a patch's cells now, all at once, so applying it later only moves nodes in:
// a page makes the patches sent ahead ready while it waits for the next press (pool.js). Used by
// the next applyPatch only; one applied again parses its markup then. (applyPatch parses an
// unprepared patch here too: one parse of all its cells costs the browser less than one per cell.)
export function prepare(doc, patch) {
  if (patch.parsed) return;
  const bodies = [...patch.cells.map(([, , body]) => (typeof body === "string" ? body : "")),  // edits: no markup
                  ...(patch.insert || []).map(([, , body]) => body)];
  const holder = doc.createElementNS(SVG_NS, "svg");
  holder.innerHTML = bodies.map((body) => `<g>${body}</g>`).join("");
  patch.parsed = [...holder.children];
}

// "applied"; "old" for a patch already superseded (ignored); "missed" when the page must ask for
// the full picture. Nothing changes unless the patch applies whole. With `motion`, a cell whose
// colour changed fades to it and a block that left or joined the free queue slides in, through
// the Web Animations API, which leaves the document's markup as the patch made it (none for a patch
// of more than MOTION_MAX cells).
export function applyPatch(page, patch, { motion = false } = {}) {
  if (patch.base !== page.version) return patch.version > page.version ? "missed" : "old";
  const has = (key) => page.cells.has(key);
  const keys = [...(patch.remove || []), ...patch.cells.map(([key]) => key)];
  const befores = (patch.insert || []).map(([, , , before]) => before).filter((before) => before !== null);
  if (!keys.every(has) || !befores.every(has)) return "missed";
  if (patch.root) setAttrs(page.svg, patch.root);
  if (patch.head !== undefined) page.head.innerHTML = patch.head;
  if (patch.touched !== undefined) page.touched.innerHTML = patch.touched;
  if (patch.legend !== undefined) page.legend.innerHTML = patch.legend;
  for (const key of patch.remove || []) {
    page.cells.get(key).remove();
    page.cells.delete(key);
  }
  const moving = motion && patch.cells.length <= MOTION_MAX;
  prepare(page.svg.ownerDocument, patch);
  const parsed = patch.parsed;
  patch.parsed = null;
  patch.cells.forEach(([key, attrs, body], k) => {
    const node = page.cells.get(key);
    const was = moving ? looks(node) : null;
    if (attrs) setAttrs(node, attrs);
    if (Array.isArray(body)) edit(node, body);
    else if (body !== null) morph(node, parsed[k]);
    if (was) move(node, was);
  });
  (patch.insert || []).forEach(([key, attrs, , before], k) => {
    const node = page.svg.ownerDocument.createElementNS(SVG_NS, "g");
    setAttrs(node, attrs);
    node.replaceChildren(...parsed[patch.cells.length + k].childNodes);
    page.group.insertBefore(node, before === null ? null : page.cells.get(before));
    page.cells.set(key, node);
  });
  page.version = patch.version;
  return "applied";
}

// Changes values in place, each [index of the element in document order, attribute name or "" for
// the element's text, value]: a cell whose elements stay (a block changing state in a large pool)
// changes only what a page must repaint, without markup to parse or compare.
function edit(node, edits) {
  const elements = node.getElementsByTagName("*");
  for (const [k, name, value] of edits) {
    if (name) elements[k].setAttribute(name, value);
    else elements[k].textContent = value;
  }
}

// Makes `node`'s children those of `parsed`, keeping each element whose name matches the new one
// and changing only its attributes: a block changing state changes a fill and a glyph, which the
// browser repaints, where new elements would be laid out anew (at a 460-block prefill, most of the
// step's time). The markup comes out exactly as the new children's.
function morph(node, parsed) {
  const olds = [...node.childNodes], news = [...parsed.childNodes];
  news.forEach((next, i) => {
    const old = olds[i];
    if (!old || old.nodeType !== next.nodeType || old.nodeName !== next.nodeName) {
      if (old) old.replaceWith(next); else node.append(next);
    } else if (old.nodeType !== 1) {
      if (old.nodeValue !== next.nodeValue) old.nodeValue = next.nodeValue;
    } else {
      setAttrs(old, Object.fromEntries(next.getAttributeNames().map((name) => [name, next.getAttribute(name)])));
      morph(old, next);
    }
  });
  for (const extra of olds.slice(news.length)) extra.remove();
}

// Sets exactly `attrs` ({name: value}) on `node`, in their order (the markup lists attributes in
// the order they were set): those already in place are left alone or change value; from the first
// name out of place on, the rest are removed and set again.
export function setAttrs(node, attrs) {
  const names = node.getAttributeNames(), wanted = Object.keys(attrs);
  let k = 0;
  while (k < names.length && k < wanted.length && names[k] === wanted[k]) k++;
  for (const name of names.slice(k)) node.removeAttribute(name);
  wanted.forEach((name, i) => {
    if (i >= k || node.getAttribute(name) !== attrs[name]) node.setAttribute(name, attrs[name]);
  });
}

// The states of blocks in the free queue (blockviz/states.py); the others are in block tables.
const QUEUED = new Set(["free", "cached-free", "stale-free"]);

function looks(node) {
  const rect = node.querySelector("rect");
  return { fill: rect && rect.getAttribute("fill"), queued: QUEUED.has(node.getAttribute("data-state")) };
}

function move(node, was) {
  if (typeof node.animate !== "function") return;  // a page without Web Animations just shows the result
  const timing = { duration: MOTION_MS, easing: "ease-out" };
  const now = looks(node);
  if (was.fill && now.fill && was.fill !== now.fill) {
    node.querySelector("rect").animate([{ fill: was.fill }, { fill: now.fill }], timing);
  }
  if (was.queued !== now.queued) {  // into a block table (allocated) from the left, back to the queue from the right
    const from = now.queued ? "translate(12px, 0)" : "translate(-12px, 0)";
    node.animate([{ transform: from, opacity: 0.4 }, { transform: "none", opacity: 1 }], timing);
  }
}
