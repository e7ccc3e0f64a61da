"""The player: ⇤ ◀ ▶ ⇥ (to the start, one step back, one step forward, to the end), a separate
play/pause, a step field, the speed and a follow-the-live-end toggle; keys ← → and space.

It has its own step (see stepping.py) and moves the views it drives (`drive`); it never moves the
timeline's cursor. It starts paused. Stepping past the recorded end runs the engine when the
timeline is a live Session. The page (js/player.js) asks for one step at a time while playing.
"""
import anywidget
import traitlets

from blockviz.i18n import t
from blockviz.views.assets import STYLES, module
from blockviz.views.stepping import Stepped, opening

STRINGS = ("first", "back", "play", "pause", "forward", "last", "jump", "speed", "keys", "follow", "legend")


class Player(anywidget.AnyWidget, Stepped):
    _esm = module("player.js")
    _css = STYLES
    step = traitlets.Int(0).tag(sync=True)  # the page shows it in the step field
    first_step = traitlets.Int(0).tag(sync=True)
    last_step = traitlets.Int(0).tag(sync=True)
    at_end = traitlets.Bool(False).tag(sync=True)  # nothing further: ▶ does nothing
    playing = traitlets.Bool(False).tag(sync=True)
    speed = traitlets.Float(2.0).tag(sync=True)
    status = traitlets.Unicode("").tag(sync=True)
    strings = traitlets.Dict().tag(sync=True)

    def __init__(self, timeline, lang: str = "en", step: int | None = None, follow: bool | None = None, **kwargs):
        step, follow = opening(timeline, step, follow)
        super().__init__(strings={k: t(f"player.{k}", lang) for k in STRINGS}, step=step, follow=follow, **kwargs)
        self.lang = lang
        self.add_class("bv-sticky")  # stays in view above the panes it drives
        self.start(timeline)
        self.on_msg(self._on_msg)
        self.show_step()

    def drive(self, *views):
        """Show `views` at this player's step from now on (they stop following on their own). They
        hear of a new step before the player updates its own status, so the page gets their
        pictures first (the first view first)."""
        self.unobserve(self._on_step, "step")
        for view in views:
            view.follow = False
            if view.has_trait("controls"):
                view.controls = False
            traitlets.dlink((self, "step"), (view, "step"))
        self.observe(self._on_step, "step")

    def finished(self) -> bool:
        """Nothing further to show: the last recorded step, and no engine that can go on."""
        tl = self.timeline
        return self.step == tl.last_step and not (tl.can_run and not tl.is_finished())

    def show_step(self):
        tl = self.timeline
        at_end = self.finished()
        if at_end:
            self.playing = False
        status = t("player.status", self.lang, step=self.step, last=tl.last_step)
        if tl.first_step > 0:
            status += " · " + t("player.window", self.lang, first=tl.first_step)
        if self.step == tl.last_step:
            key = "player.can_run" if not at_end else "player.finished" if tl.can_run else "player.trace_end"
            status += " · " + t(key, self.lang)
        with self.hold_sync():
            self.first_step, self.last_step, self.at_end, self.status = tl.first_step, tl.last_step, at_end, status

    def _on_msg(self, _widget, content, _buffers):
        cmd = content.get("cmd")
        if cmd == "forward":
            self.forward()
        elif cmd == "back":
            self.seek(self.step - 1)
        elif cmd == "first":
            self.seek(self.timeline.first_step)
        elif cmd == "last":
            self.seek(self.timeline.last_step)
        elif cmd == "seek":
            self.seek(int(content.get("step") or 0))
        elif cmd == "toggle":
            self.playing = not self.playing and not self.finished()
        elif cmd == "follow":
            self.follow = not self.follow
        self.send({"done": True})  # lets the browser's play timer ask for the next step

    def forward(self):
        """One step on; past the recorded end, the engine runs one step (when it can)."""
        if self.finished():
            self.playing = False
        elif self.step < self.timeline.last_step:
            self.step += 1
        else:
            self.seek(self.step + 1)

    def seek(self, step: int):
        """Show `step`, running the engine if it lies past the recorded end (and it can run); a
        step before the first kept shows the first. Leaving the live end stops following."""
        tl = self.timeline
        if step > tl.last_step and tl.can_run and not tl.is_finished():
            tl.run(max_steps=step - tl.last_step)
        step = max(tl.first_step, min(step, tl.last_step))
        if step < tl.last_step:
            self.follow = False
        self.step = step
