// The pool: drawn whole from `full`, then changed cell by cell by each `patch` (see pool_patch.js);
// a page that missed a patch asks for `full` again. Under a player it also keeps the patches sent
// ahead (`ahead`), so ◀ ▶ show the next step at once (step_ahead.js). No motion when the user
// prefers reduced motion.
import { frame } from "./frame.js";
import { applyPatch, prepare, showFull } from "./pool_patch.js";
import { aheadIndex, listenSteps } from "./step_ahead.js";

const idle = (fn) => (window.requestIdleCallback ? window.requestIdleCallback(fn) : setTimeout(fn, 0));

function render({ model, el }) {
  const pane = frame(model, el);
  const still = window.matchMedia("(prefers-reduced-motion: reduce)");
  let page = null, ahead = new Map(), readying = 0;
  // the patches a press may apply next (to the steps either side, nearest first), parsed while the
  // page is idle, one per idle period: a press then waits for one parse at most, not for them all
  const makeReady = () => {
    const run = ++readying, queue = [...(page && ahead.get(page.version) || new Map()).values()];
    const next = () => {
      if (run !== readying || queue.length === 0) return;  // a newer step has its own
      prepare(document, queue.shift());
      idle(next);
    };
    idle(next);
  };
  const drawFull = () => {
    const full = model.get("full");
    if (full.svg) page = showFull(pane, full);
  };
  const patch = () => {
    const next = JSON.parse(model.get("patch"));
    if (next.version === undefined) return;
    if (page === null || applyPatch(page, next, { motion: !still.matches }) === "missed") model.send({ full: true });
  };
  const readAhead = () => { ahead = aheadIndex(JSON.parse(model.get("ahead"))); makeReady(); };
  // the patch from the version shown to `step`, sent ahead; the base matched, so it applies whole
  const showStep = (step, apply) => {
    const next = page && ahead.get(page.version)?.get(step);
    if (next && apply) {
      applyPatch(page, next, { motion: !still.matches });
      makeReady();
    }
    return Boolean(next);
  };
  // the cells flow in as many columns as the pane has room for (the picture says each cell's step
  // and its padding): Python is told when that number changes, and sends the pool redrawn whole
  const fit = () => {
    const svg = pane.querySelector("svg[data-cell-step]");
    if (!svg || !pane.clientWidth) return;
    const wanted = Math.max(1, Math.floor((pane.clientWidth - 2 * +svg.dataset.pad) / +svg.dataset.cellStep));
    const blocks = +svg.dataset.numBlocks || wanted;
    const shown = +svg.dataset.columns;
    if (Math.min(wanted, blocks) !== shown && wanted !== model.get("columns")) {
      model.set("columns", wanted);
      model.save_changes();
    }
  };
  if (window.ResizeObserver) new window.ResizeObserver(() => requestAnimationFrame(fit)).observe(pane);
  model.on("change:full", () => requestAnimationFrame(fit));
  model.on("change:full", drawFull);
  model.on("change:patch", patch);
  model.on("change:ahead", readAhead);
  drawFull();
  patch();
  readAhead();
  return listenSteps(window, () => model.get("channel"), showStep);
}
export default { render };
