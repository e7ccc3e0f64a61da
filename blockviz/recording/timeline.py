"""Recorded frames plus a cursor: what every view follows.

A Timeline alone replays a loaded trace; a Session (blockviz/session.py) is a Timeline that
can also run its engine when the cursor steps past the recorded end.
"""
from typing import Callable

from blockviz.recording.events import Event
from blockviz.recording.frame import Frame
from blockviz.recording.snapshot import Snapshot

Listener = Callable[[int], None]


class Timeline:

    def __init__(self, frames: list[Frame], meta: dict):
        self.frames = frames
        self.meta = meta      # block_size, num_blocks, labels, model, ...
        self.cursor = 0
        self._listeners: list[Listener] = []

    @property
    def first_step(self) -> int:
        """The oldest step still kept (a live session with a bounded history forgets older ones)."""
        return getattr(self.frames, "first_step", 0)

    @property
    def last_step(self) -> int:
        return len(self.frames) - 1

    @property
    def can_run(self) -> bool:
        return False

    def on_change(self, listener: Listener):
        """Call listener(cursor) whenever the cursor moves or a new frame arrives."""
        self._listeners.append(listener)

    def notify(self):
        for listener in list(self._listeners):
            listener(self.cursor)

    def seek(self, step: int) -> Frame:
        if step < 0:
            step += len(self.frames)
        frame = self.frames[step]  # raises IndexError saying which steps are kept
        self.cursor = step
        self.notify()
        return frame

    def forward(self) -> Frame:
        if self.cursor < self.last_step:
            return self.seek(self.cursor + 1)
        return self.frames[self.cursor]

    def back(self) -> Frame:
        return self.seek(max(self.cursor - 1, self.first_step))

    def frame(self, step: int | None = None) -> Frame:
        return self.frames[self.cursor if step is None else step]

    def snapshot(self, step: int | None = None) -> Snapshot:
        return self.frame(step).snapshot

    def events(self, step: int | None = None) -> tuple[Event, ...]:
        return self.frame(step).events

    def replay_error(self, step: int, error: Exception) -> Exception:
        """What to raise when replaying step `step` failed (a trace file names itself)."""
        return error

    def decode(self, token_ids) -> str:
        """Text of token ids, through the trace's tokenizer when it has one."""
        tokenizer = getattr(self, "tokenizer", None)
        if tokenizer is None:
            return " ".join(str(t) for t in token_ids)
        return tokenizer.decode(list(token_ids))
