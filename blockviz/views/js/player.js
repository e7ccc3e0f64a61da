// The player: ⇤ to the start, ◀ one step back, ▶ one step forward, ⇥ to the end, a separate
// play/pause, a step field, the speed, a follow-the-live-end toggle, its status and a one-line
// legend. Keys: ← → step, space plays or pauses. Python does every move: ◀ ▶ (and ← →) show a
// neighbouring step at once when Python sent it ahead to the player and the views it drives
// (step_ahead.js), then tell Python that step; without it they ask Python. The play timer runs
// here and asks for one step at a time, waiting for the answer, so a slow step never piles up requests.
import { stepViews } from "./step_ahead.js";

// once the next frame is drawn (a second frame's callbacks run after the first frame was made), or
// after LATER_MS in a page that draws no frames (a tab in the background)
export const LATER_MS = 100;
const later = (fn) => {
  let done = false;
  const once = () => { if (!done) { done = true; fn(); } };
  requestAnimationFrame(() => requestAnimationFrame(once));
  setTimeout(once, LATER_MS);
};

function render({ model, el }) {
  const s = model.get("strings");
  const root = document.createElement("div");
  root.className = "bv-player"; root.tabIndex = 0;
  root.setAttribute("role", "toolbar"); root.setAttribute("aria-label", s.keys);
  const controls = document.createElement("div");
  controls.className = "bv-controls";
  let waiting = false, timer = null;
  // each command this page sent, until Python answers it; a step shown before the answers
  const me = Math.random().toString(36).slice(2);
  let sent = 0, local = null;
  const pending = new Set();
  // Commands reach Python in the order sent. One for a step drawn here already (`shown`) waits until
  // the frame is drawn, and any sent after it wait with it: Python's answer (the panes it redraws, the
  // steps around sent ahead) can wait, and on a machine of few cores the kernel working through it
  // would take the CPU the browser needs to draw the step.
  const outbox = [];
  const send = (cmd, step, shown = false) => {
    waiting = true;
    const id = `${me}:${++sent}`;
    pending.add(id);
    root.setAttribute("aria-busy", "true");
    if (!shown && outbox.length === 0) return model.send({ cmd, step, id });
    outbox.push({ cmd, step, id });
    if (outbox.length === 1) later(() => { for (const message of outbox.splice(0)) model.send(message); });
  };
  const move = (delta, cmd) => {
    const to = (local ? local.step : model.get("step")) + delta;
    const label = model.get("ahead")[to];
    if (label && stepViews(window, model.get("channel"), to)) {
      local = { step: to, status: label[0], at_end: label[1] };
      draw();
      send("seek", to, true);
    } else send(cmd);
  };
  const press = (cmd) => (cmd === "back" ? move(-1, cmd) : cmd === "forward" ? move(1, cmd) : send(cmd));
  const button = (text, label, cmd) => {
    const b = document.createElement("button");
    b.textContent = text; b.title = label; b.setAttribute("aria-label", label);
    b.dataset.cmd = cmd; b.addEventListener("click", () => press(cmd));
    controls.append(b);
    return b;
  };
  const first = button("⇤", s.first, "first");
  const back = button("◀", s.back, "back");
  const forward = button("▶", s.forward, "forward");
  const last = button("⇥", s.last, "last");
  const play = button("", s.play, "toggle");
  play.classList.add("bv-play");
  const jump = document.createElement("input");
  jump.type = "number"; jump.className = "bv-jump"; jump.setAttribute("aria-label", s.jump); jump.title = s.jump;
  // Enter seeks at once (JupyterLab would otherwise take the key, and a number field only reports a
  // change when it loses focus); leaving the field seeks too, unless Enter already sent that step
  let sought = null;
  const seek = () => {
    if (jump.value === "" || jump.value === sought) return;
    sought = jump.value;
    send("seek", +jump.value);
  };
  jump.addEventListener("keydown", (e) => {
    if (e.key !== "Enter") return;
    e.preventDefault();
    e.stopPropagation();
    seek();
  });
  jump.addEventListener("input", () => { sought = null; });
  jump.addEventListener("change", seek);
  jump.addEventListener("blur", () => draw());  // the step shown again, once the reader is done
  const speed = document.createElement("select");
  speed.setAttribute("aria-label", s.speed); speed.title = s.speed;
  for (const v of [0.5, 1, 2, 4, 8, 16]) speed.append(new Option(v + "/s", v));
  speed.addEventListener("change", () => { model.set("speed", +speed.value); model.save_changes(); });
  const follow = document.createElement("label");
  follow.className = "bv-follow";
  const followBox = document.createElement("input");
  followBox.type = "checkbox";
  followBox.addEventListener("change", () => send("follow"));
  follow.append(followBox, document.createTextNode(" " + s.follow));
  const status = document.createElement("span");
  status.className = "bv-status"; status.setAttribute("aria-live", "polite");
  controls.append(jump, speed, follow, status);
  const legend = document.createElement("div");
  legend.className = "bv-legend";
  legend.textContent = s.legend;
  root.append(controls, legend);
  el.append(root);
  const tick = () => {
    clearTimeout(timer);
    if (model.get("playing") && !waiting) timer = setTimeout(() => move(1, "forward"), 1000 / model.get("speed"));
  };
  // a write only where the value changed: each step draws twice (at once, then Python's answer), and
  // an unchanged write still makes the browser restyle and lay the toolbar out again
  const put = (node, key, value) => { if (node[key] !== value) node[key] = value; };
  const mark = (node, name, value) => { if (node.getAttribute(name) !== value) node.setAttribute(name, value); };
  const draw = () => {  // the step shown here, Python's state otherwise
    const shown = local || { step: model.get("step"), status: model.get("status"), at_end: model.get("at_end") };
    const step = shown.step, lo = model.get("first_step"), hi = model.get("last_step");
    put(status, "textContent", shown.status);
    mark(root, "data-step", String(step));
    // not while the reader types a step in it: an answer arriving meanwhile would undo the typing
    if (jump.ownerDocument.activeElement !== jump) put(jump, "value", String(step));
    put(jump, "min", String(lo)); put(jump, "max", String(hi));
    put(speed, "value", String(model.get("speed")));
    put(followBox, "checked", model.get("follow"));
    const playing = model.get("playing");
    put(play, "textContent", playing ? "❚❚ " + s.pause : "▷ " + s.play);
    put(play, "title", playing ? s.pause : s.play);
    mark(play, "aria-pressed", String(playing));
    // marked, not disabled: a disabled button would drop the keyboard focus
    for (const [b, off] of [[first, step <= lo], [back, step <= lo], [last, step >= hi], [forward, shown.at_end]]) {
      mark(b, "aria-disabled", String(off));
    }
  };
  const update = () => { waiting = false; draw(); tick(); };  // Python's state changed
  model.on("change:step change:first_step change:last_step change:status change:playing change:speed " +
           "change:follow change:at_end", update);
  model.on("msg:custom", (msg) => {
    if (!msg.done || !pending.delete(msg.id)) return;  // another page's command
    if (pending.size === 0) {  // answered: show Python's state from now on
      local = null;
      root.setAttribute("aria-busy", "false");
      update();
    } else {
      waiting = false; tick();
    }
  });
  // A press in a cell JupyterLab has not made active makes it active first, which restyles the whole
  // cell (every block of a pool) before the step can be drawn. The player keeps the press's mousedown
  // and focus from the notebook and hands the focus on once the step is drawn: the cell still becomes
  // active, a frame later.
  let handing = false;
  for (const type of ["mousedown", "pointerdown", "focusin"]) {
    root.addEventListener(type, (e) => {
      if (handing || root.closest(".jp-mod-active")) return;
      e.stopPropagation();
      if (type === "focusin") later(() => {
        handing = true;
        root.dispatchEvent(new FocusEvent("focusin", { bubbles: true }));
        handing = false;
      });
    });
  }
  root.addEventListener("keydown", (e) => {
    if (e.target === jump || e.target === speed) return;
    if (e.key === "ArrowLeft") { e.preventDefault(); press("back"); }
    else if (e.key === "ArrowRight") { e.preventDefault(); press("forward"); }
    else if (e.key === " ") { e.preventDefault(); press("toggle"); }
  });
  root.setAttribute("aria-busy", "false");
  update();
}
export default { render };
