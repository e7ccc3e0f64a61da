// Several vLLM instances side by side and the router's pick (views/fleet.py renders it, escaped);
// this only places it and keeps the step on the root for tests and styles.
export function draw(root, model) {
  root.innerHTML = model.get("html");
  root.dataset.step = model.get("step");
}

function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "bv-fleet-view";
  el.append(root);
  const update = () => draw(root, model);
  model.on("change:html change:step", update);
  update();
}
export default { render };
