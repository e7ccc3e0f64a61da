// The capacity view (views/capacity_widget.py): two sliders, the KV memory on a log scale and the
// share of it on the GPU, and the picture Python renders for them (views/render_capacity.py, escaped).
// A slider sends its value; Python answers with a new picture.
function slider(root, model, name, min, max, step, label) {
  const row = document.createElement("label");
  row.className = "bv-capacity-slider";
  const caption = document.createElement("span");
  caption.textContent = label;
  const input = document.createElement("input");
  Object.assign(input, { type: "range", min: String(min), max: String(max), step: String(step) });
  input.dataset.trait = name;
  input.value = String(model.get(name));
  input.addEventListener("input", () => {
    model.set(name, Number(input.value));
    model.save_changes();
  });
  row.append(caption, input);
  root.append(row);
  return input;
}

export function draw(picture, inputs, model) {
  picture.innerHTML = model.get("html");
  for (const input of inputs) {
    const value = String(model.get(input.dataset.trait));
    if (input.value !== value) input.value = value;
  }
}

function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "bv-capacity-view";
  const labels = model.get("labels") || {};
  const controls = document.createElement("div");
  controls.className = "bv-capacity-controls";
  root.append(controls);
  const inputs = [
    slider(controls, model, "total_log", model.get("lo_log"), model.get("hi_log"), 0.01, labels.total || "memory"),
    slider(controls, model, "gpu_share", 0, 1, 0.01, labels.split || "GPU share"),
  ];
  const picture = document.createElement("div");
  picture.className = "bv-capacity-picture";
  root.append(picture);
  el.append(root);
  const update = () => draw(picture, inputs, model);
  model.on("change:html change:total_log change:gpu_share", update);
  update();
}
export default { render };
