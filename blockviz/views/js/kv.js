// The KV view: a K/V switch above the picture; the switch sets `kv`, Python redraws.
import { frame } from "./frame.js";

function render({ model, el }) {
  const s = model.get("strings");
  const bar = document.createElement("div");
  bar.className = "bv-toggle"; bar.setAttribute("role", "group"); bar.setAttribute("aria-label", s.group);
  const buttons = ["k", "v"].map((kv) => {
    const b = document.createElement("button");
    b.textContent = s[kv]; b.dataset.kv = kv;
    b.addEventListener("click", () => { model.set("kv", kv); model.save_changes(); });
    bar.append(b);
    return b;
  });
  el.append(bar);
  const pane = frame(model, el);
  const draw = () => {
    pane.innerHTML = model.get("svg");
    for (const b of buttons) b.setAttribute("aria-pressed", String(b.dataset.kv === model.get("kv")));
  };
  model.on("change:svg change:kv", draw);
  draw();
}
export default { render };
