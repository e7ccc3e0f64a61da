// The pool: drawn whole from `full`, then changed cell by cell by each `patch` (see pool_patch.js);
// a page that missed a patch asks for `full` again. No motion when the user prefers reduced motion.
import { frame } from "./frame.js";
import { applyPatch, showFull } from "./pool_patch.js";

function render({ model, el }) {
  const pane = frame(model, el);
  const still = window.matchMedia("(prefers-reduced-motion: reduce)");
  let page = null;
  const drawFull = () => {
    const full = model.get("full");
    if (full.svg) page = showFull(pane, full);
  };
  const patch = () => {
    const next = JSON.parse(model.get("patch"));
    if (next.version === undefined) return;
    if (page === null || applyPatch(page, next, { motion: !still.matches }) === "missed") model.send({ full: true });
  };
  model.on("change:full", drawFull);
  model.on("change:patch", patch);
  drawFull();
  patch();
}
export default { render };
