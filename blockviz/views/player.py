"""The player: ⇤ ◀ ▶ ⇥ (to the start, one step back, one step forward, to the end), a separate
play/pause, a step field, the speed and a follow-the-live-end toggle; keys ← → and space.

It has its own step (see stepping.py) and moves the views it drives (`drive`); it never moves the
timeline's cursor. It starts paused. Stepping past the recorded end runs the engine when the
timeline is a live Session. The page (js/player.js) asks for one step at a time while playing.
When it drives a pool, ◀ ▶ show a neighbouring step at once from what was sent ahead (`ahead`: the
status of each step around the one shown; the pool sends its patches, see ahead.py), then tell
Python the step, which moves the other views.
"""
import uuid

import anywidget
import traitlets

from blockviz.i18n import t
from blockviz.views.ahead import steps_around
from blockviz.views.assets import STYLES, module
from blockviz.views.stepping import Stepped, opening

STRINGS = ("first", "back", "play", "pause", "forward", "last", "jump", "speed", "keys", "follow", "legend")


class Player(anywidget.AnyWidget, Stepped):
    _esm = module("step_ahead.js", "player.js")
    _css = STYLES
    step = traitlets.Int(0).tag(sync=True)  # the page shows it in the step field
    first_step = traitlets.Int(0).tag(sync=True)
    last_step = traitlets.Int(0).tag(sync=True)
    at_end = traitlets.Bool(False).tag(sync=True)  # nothing further: ▶ does nothing
    playing = traitlets.Bool(False).tag(sync=True)
    speed = traitlets.Float(2.0).tag(sync=True)
    status = traitlets.Unicode("").tag(sync=True)
    strings = traitlets.Dict().tag(sync=True)
    ahead = traitlets.Dict().tag(sync=True)        # {step: [status, at_end]} of the steps sent ahead
    channel = traitlets.Unicode("").tag(sync=True)  # names this player to the views it drives, in the page

    def __init__(self, timeline, lang: str = "en", step: int | None = None, follow: bool | None = None, **kwargs):
        step, follow = opening(timeline, step, follow)
        super().__init__(strings={k: t(f"player.{k}", lang) for k in STRINGS}, step=step, follow=follow,
                         channel=uuid.uuid4().hex, **kwargs)
        self.lang = lang
        self.ahead_views = []  # the views driven that send their steps ahead (pools)
        self.running = False   # the engine runs for a seek
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
            if view.has_trait("channel"):
                view.channel = self.channel
                self.ahead_views.append(view)
            traitlets.dlink((self, "step"), (view, "step"))
        self.observe(self._on_step, "step")
        self.send_ahead()

    def finished(self, step: int | None = None) -> bool:
        """Nothing further to show at `step` (default: the one shown): the last recorded step, and
        no engine that can go on."""
        tl = self.timeline
        return (self.step if step is None else step) == tl.last_step and not (tl.can_run and not tl.is_finished())

    def label(self, step: int) -> tuple[str, bool]:
        """(status line, nothing further) of the player at `step`."""
        tl = self.timeline
        at_end = self.finished(step)
        status = t("player.status", self.lang, step=step, last=tl.last_step)
        if tl.first_step > 0:
            status += " · " + t("player.window", self.lang, first=tl.first_step)
        if step == tl.last_step:
            key = "player.can_run" if not at_end else "player.finished" if tl.can_run else "player.recording_end"
            status += " · " + t(key, self.lang)
        return status, at_end

    def show_step(self):
        tl = self.timeline
        status, at_end = self.label(self.step)
        if at_end:
            self.playing = False
        with self.hold_sync():
            self.first_step, self.last_step, self.at_end, self.status = tl.first_step, tl.last_step, at_end, status
        self.send_ahead()

    def send_ahead(self):
        """The steps around this one, for the page to show at once (none without a pool driven).
        Runs after every view driven shows the new step (they hear of it first), so it delays none."""
        if self.running:
            return
        for view in self.ahead_views:
            view.send_ahead()
        tl = self.timeline
        self.ahead = {str(k): list(self.label(k)) for k in steps_around(self.step, tl.first_step, tl.last_step)
                      } if self.ahead_views else {}

    def _on_msg(self, _widget, content, _buffers):
        cmd = content.get("cmd")
        try:
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
        finally:  # answered even when the move failed: the page stops waiting and shows Python's step
            self.send({"done": True, "id": content.get("id")})

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
        runs = step > tl.last_step and tl.can_run and not tl.is_finished()
        if runs:
            self.running = True  # the step the run ends on first: nothing sent ahead of steps passed on the way
            try:
                tl.run(max_steps=step - tl.last_step)
            finally:
                self.running = False
        step = max(tl.first_step, min(step, tl.last_step))
        if step < tl.last_step:
            self.follow = False
        moves = step != self.step  # (following, the run moved it already)
        self.step = step
        if runs and not moves:
            self.send_ahead()
