// The pane every view draws into, its detail box and, for a view shown on its own, a bar with the
// step it shows and its follow toggle (inside a dashboard the player shows both). A click on
// anything with data-block-id is sent back to Python.
export function frame(model, el) {
  const bar = document.createElement("div");
  bar.className = "bv-viewbar";
  const where = document.createElement("span");
  const toggle = document.createElement("label");
  const box = document.createElement("input");
  box.type = "checkbox";
  toggle.append(box, document.createTextNode(" " + model.get("strings").follow));
  box.addEventListener("change", () => { model.set("follow", box.checked); model.save_changes(); });
  bar.append(where, toggle);
  const pane = document.createElement("div");
  pane.className = "bv-pane";
  const detail = document.createElement("div");
  detail.className = "bv-detail-box";
  el.append(bar, pane, detail);
  const sync = () => {
    bar.hidden = !model.get("controls");
    where.textContent = model.get("caption");
    box.checked = model.get("follow");
    pane.style.maxHeight = model.get("max_height") || "";
  };
  const drawDetail = () => { detail.innerHTML = model.get("detail"); };
  model.on("change:controls change:caption change:follow change:max_height", sync);
  model.on("change:detail", drawDetail);
  pane.addEventListener("click", (e) => {
    const target = e.target.closest("[data-block-id]");
    if (target && +target.dataset.blockId >= 0) model.send({ block: +target.dataset.blockId });
  });
  sync(); drawDetail();
  return pane;
}
