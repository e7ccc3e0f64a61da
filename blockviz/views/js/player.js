// The player: ⇤ to the start, ◀ one step back, ▶ one step forward, ⇥ to the end, a separate
// play/pause, a step field, the speed, a follow-the-live-end toggle, its status and a one-line
// legend. Keys: ← → step, space plays or pauses. Python does every move; the play timer runs here
// and asks for one step at a time, waiting for the answer, so a slow step never piles up requests.
function render({ model, el }) {
  const s = model.get("strings");
  const root = document.createElement("div");
  root.className = "bv-player"; root.tabIndex = 0;
  root.setAttribute("role", "toolbar"); root.setAttribute("aria-label", s.keys);
  const controls = document.createElement("div");
  controls.className = "bv-controls";
  let waiting = false, timer = null;
  const send = (cmd, step) => { waiting = true; model.send({ cmd, step }); };
  const button = (text, label, cmd) => {
    const b = document.createElement("button");
    b.textContent = text; b.title = label; b.setAttribute("aria-label", label);
    b.dataset.cmd = cmd; b.addEventListener("click", () => send(cmd));
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
  jump.addEventListener("change", () => send("seek", +jump.value));
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
    if (model.get("playing") && !waiting) timer = setTimeout(() => send("forward"), 1000 / model.get("speed"));
  };
  const update = () => {
    waiting = false;
    const step = model.get("step"), lo = model.get("first_step"), hi = model.get("last_step");
    status.textContent = model.get("status");
    root.dataset.step = step;
    jump.value = step; jump.min = lo; jump.max = hi;
    speed.value = model.get("speed");
    followBox.checked = model.get("follow");
    const playing = model.get("playing");
    play.textContent = playing ? "❚❚ " + s.pause : "▷ " + s.play;
    play.title = playing ? s.pause : s.play;
    play.setAttribute("aria-pressed", String(playing));
    // marked, not disabled: a disabled button would drop the keyboard focus
    for (const [b, off] of [[first, step <= lo], [back, step <= lo], [last, step >= hi], [forward, model.get("at_end")]]) {
      b.setAttribute("aria-disabled", String(off));
    }
    tick();
  };
  model.on("change:step change:first_step change:last_step change:status change:playing change:speed " +
           "change:follow change:at_end", update);
  model.on("msg:custom", (msg) => { if (msg.done) { waiting = false; tick(); } });
  root.addEventListener("keydown", (e) => {
    if (e.target === jump || e.target === speed) return;
    if (e.key === "ArrowLeft") { e.preventDefault(); send("back"); }
    else if (e.key === "ArrowRight") { e.preventDefault(); send("forward"); }
    else if (e.key === " ") { e.preventDefault(); send("toggle"); }
  });
  update();
}
export default { render };
