// A vLLM watch at one step: the counters strip, the chain forest, the eviction order and the latest
// problem with the messages. Python renders each part (views/render_forest.py); this only places
// them, and says it is waiting until the first batch arrives.
export function draw(parts, model) {
  const forest = model.get("forest");
  parts.counters.innerHTML = model.get("counters");
  parts.forest.innerHTML = forest || `<p class="bv-vllm-waiting">${model.get("strings").waiting}</p>`;
  parts.evictions.innerHTML = model.get("evictions");
  parts.problem.textContent = model.get("problem");
  parts.problem.hidden = !model.get("problem");
  parts.root.dataset.step = model.get("step");
}

function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "bv-vllm";
  const part = (cls, tag = "div") => {
    const node = document.createElement(tag);
    node.className = cls;
    root.append(node);
    return node;
  };
  const parts = { root, counters: part("bv-vllm-strip"), forest: part("bv-vllm-forest"),
                  evictions: part("bv-vllm-order"), problem: part("bv-vllm-problem", "p") };
  parts.problem.setAttribute("role", "status");
  el.append(root);
  const update = () => draw(parts, model);
  model.on("change:forest change:evictions change:counters change:problem change:step", update);
  update();
}
export default { render };
