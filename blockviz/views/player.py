"""The player: step back and forward, play/pause, speed, jump; keyboard arrows and space.

It starts paused. Stepping past the recorded end calls timeline.forward(), which runs the engine
when the timeline is a live Session. The play timer runs in the browser and asks for one step at a
time, waiting for the answer, so a slow step never piles up requests.
"""
import anywidget
import traitlets

from blockviz.i18n import t

PLAYER_ESM = """
function render({ model, el }) {
  const s = model.get("strings");
  const root = document.createElement("div");
  root.className = "bv-player"; root.tabIndex = 0;
  root.setAttribute("role", "toolbar"); root.setAttribute("aria-label", s.keys);
  const button = (text, label, cmd) => {
    const b = document.createElement("button");
    b.textContent = text; b.title = label; b.setAttribute("aria-label", label);
    b.dataset.cmd = cmd; b.addEventListener("click", () => send(cmd)); root.append(b); return b;
  };
  let waiting = false, timer = null;
  const send = (cmd, step) => { waiting = true; model.send({ cmd, step }); };
  button("⇤", s.first, "first");
  button("◀", s.back, "back");
  const play = button("▶", s.play, "toggle");
  button("▶|", s.forward, "forward");
  button("⇥", s.last, "last");
  const jump = document.createElement("input");
  jump.type = "number"; jump.min = 0; jump.className = "bv-jump"; jump.setAttribute("aria-label", s.jump);
  jump.title = s.jump;
  jump.addEventListener("change", () => send("seek", +jump.value));
  const speed = document.createElement("select");
  speed.setAttribute("aria-label", s.speed); speed.title = s.speed;
  for (const v of [0.5, 1, 2, 4, 8, 16]) speed.append(new Option(v + "/s", v));
  speed.addEventListener("change", () => { model.set("speed", +speed.value); model.save_changes(); });
  const status = document.createElement("span");
  status.className = "bv-status"; status.setAttribute("aria-live", "polite");
  root.append(jump, speed, status);
  el.append(root);
  const tick = () => {
    clearTimeout(timer);
    if (model.get("playing") && !waiting) timer = setTimeout(() => send("forward"), 1000 / model.get("speed"));
  };
  const update = () => {
    waiting = false;
    const step = model.get("step"), last = model.get("last_step");
    status.textContent = model.get("status");
    root.dataset.step = step;
    jump.value = step;
    speed.value = model.get("speed");
    play.textContent = model.get("playing") ? "❚❚" : "▶";
    play.title = model.get("playing") ? s.pause : s.play;
    tick();
  };
  model.on("change:step change:last_step change:status change:playing change:speed", update);
  model.on("msg:custom", (msg) => { if (msg.done) { waiting = false; tick(); } });
  root.addEventListener("keydown", (e) => {
    if (e.target === jump) return;
    if (e.key === "ArrowLeft") { e.preventDefault(); send("back"); }
    else if (e.key === "ArrowRight") { e.preventDefault(); send("forward"); }
    else if (e.key === " ") { e.preventDefault(); send("toggle"); }
  });
  update();
}
export default { render };
"""
PLAYER_CSS = """
.bv-player { display: flex; gap: 4px; align-items: center; padding: 4px; outline-offset: 2px;
  color: var(--jp-ui-font-color1, #1a1a1a); }
.bv-player button { min-width: 2.2em; font-size: 14px; }
.bv-player .bv-jump { width: 5em; }
.bv-player .bv-status { margin-left: 8px; font-family: monospace; }
"""


class Player(anywidget.AnyWidget):
    _esm = PLAYER_ESM
    _css = PLAYER_CSS
    step = traitlets.Int(0).tag(sync=True)
    last_step = traitlets.Int(0).tag(sync=True)
    playing = traitlets.Bool(False).tag(sync=True)
    speed = traitlets.Float(2.0).tag(sync=True)
    status = traitlets.Unicode("").tag(sync=True)
    strings = traitlets.Dict().tag(sync=True)

    def __init__(self, timeline, lang: str = "en", **kwargs):
        keys = ("first", "back", "play", "pause", "forward", "last", "jump", "speed", "keys")
        super().__init__(strings={k: t(f"player.{k}", lang) for k in keys}, **kwargs)
        self.timeline, self.lang = timeline, lang
        timeline.on_change(lambda cursor: self._sync())
        self.on_msg(self._on_msg)
        self._sync()

    def at_end(self) -> bool:
        """Nothing further to show: the last recorded step, and no engine that can go on."""
        tl = self.timeline
        return tl.cursor == tl.last_step and not (tl.can_run and not tl.is_finished())

    def _sync(self):
        tl = self.timeline
        if self.at_end():
            self.playing = False
        status = t("player.status", self.lang, step=tl.cursor, last=tl.last_step)
        if tl.cursor == tl.last_step:
            key = "player.can_run" if not self.at_end() else "player.finished" if tl.can_run else "player.trace_end"
            status += " · " + t(key, self.lang)
        with self.hold_sync():
            self.step, self.last_step, self.status = tl.cursor, tl.last_step, status

    def _on_msg(self, _widget, content, _buffers):
        cmd = content.get("cmd")
        tl = self.timeline
        if cmd == "forward":
            if self.at_end():
                self.playing = False
            else:
                tl.forward()
        elif cmd == "back":
            tl.back()
        elif cmd == "first":
            tl.seek(0)
        elif cmd == "last":
            tl.seek(tl.last_step)
        elif cmd == "seek":
            self.seek(int(content.get("step", 0)))
        elif cmd == "toggle":
            self.playing = not self.playing and not self.at_end()
        self.send({"done": True})  # lets the browser's play timer ask for the next step

    def seek(self, step: int):
        """Go to `step`, running the engine if it lies past the recorded end (and it can run)."""
        tl = self.timeline
        if step > tl.last_step and tl.can_run and not tl.is_finished():
            tl.run(max_steps=step - tl.last_step)
        tl.seek(max(0, min(step, tl.last_step)))
