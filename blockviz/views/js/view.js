// A view the page redraws whole from the `svg` it is sent.
import { frame } from "./frame.js";

function render({ model, el }) {
  const pane = frame(model, el);
  const draw = () => { pane.innerHTML = model.get("svg"); };
  model.on("change:svg", draw);
  draw();
}
export default { render };
