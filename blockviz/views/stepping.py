"""Which step a widget shows: its own, so a picture stays beside the text it illustrates.

Every view, the player and the dashboard has `step` (the step shown) and `follow` (move to each
new last step as the engine runs). A widget opened without a step opens at the timeline's cursor,
so a view opened after `sim.seek(3)` shows step 3; from then on it keeps its step whatever the
cursor does (Timeline.seek/forward/back are for scripts and lessons) until the learner moves it.
`follow` is on by default only for a widget opened at the live end: the last step of a session
that can still run.
"""
import traitlets


def opening(timeline, step: int | None, follow: bool | None) -> tuple[int, bool]:
    """(step, follow) of a widget opened at `step` (None: the cursor; negative: from the end)
    among the steps kept (timeline.first_step .. last_step: a live session may keep a bounded window)."""
    last = timeline.last_step
    step = timeline.cursor if step is None else step + last + 1 if step < 0 else step
    if not timeline.first_step <= step <= last:
        raise IndexError(f"step {step} is not recorded (steps {timeline.first_step}..{last})")
    if follow is None:
        follow = step == last and timeline.can_run
    return (last if follow else step), bool(follow)


def kept(timeline, step: int, follow: bool) -> int:
    """The step to show once the timeline changed: the new end when following, else the same step
    (or the first one kept, when a bounded history dropped it)."""
    if follow:
        return timeline.last_step
    return min(max(step, timeline.first_step), timeline.last_step)


class Stepped(traitlets.HasTraits):
    """`step` and `follow`, kept valid as the timeline grows. Subclasses call `start(timeline)`
    after setting the traits, and redraw in `show_step`. `step` stays in Python (a page that needs
    it, the player's, syncs it): a dashboard's step would otherwise send one message per pane."""
    step = traitlets.Int(0)
    follow = traitlets.Bool(False).tag(sync=True)

    def start(self, timeline):
        self.timeline = timeline
        self.observe(self._on_step, "step")
        self.observe(self._on_follow, "follow")
        timeline.on_change(lambda cursor: self.timeline_changed())

    @traitlets.validate("step")
    def _valid_step(self, proposal):
        step, timeline = proposal["value"], getattr(self, "timeline", None)
        if timeline is not None and not timeline.first_step <= step <= timeline.last_step:
            raise traitlets.TraitError(f"step {step} is not recorded (steps {timeline.first_step}..{timeline.last_step})")
        return step

    def _on_step(self, _change):
        self.show_step()

    def _on_follow(self, change):
        if change["new"]:
            self.step = self.timeline.last_step

    def timeline_changed(self):
        """New frames (or fewer kept): move if following, then redraw if the frame shown changed."""
        step = kept(self.timeline, self.step, self.follow)
        if step != self.step:
            self.step = step  # show_step runs
        else:
            self.show_step()

    def show_step(self):
        raise NotImplementedError
