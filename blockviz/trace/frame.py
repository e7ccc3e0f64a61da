"""Keeps every event and one snapshot per step, so any step can be shown again instantly."""
from dataclasses import dataclass

from blockviz.trace.events import Event
from blockviz.trace.snapshot import Snapshot


@dataclass(frozen=True)
class Frame:
    step: int                   # engine steps done; frame 0 is the state before the first step
    events: tuple[Event, ...]   # what happened during this step
    snapshot: Snapshot          # the state after it
    payload: dict | None = None # what only the live run knew, e.g. K/V values for the KV view


class Recorder:

    def __init__(self):
        self.frames: list[Frame] = []
        self.pending: list[Event] = []

    def emit(self, event: Event):
        self.pending.append(event)

    def record(self, snapshot: Snapshot, payload: dict | None = None) -> Frame:
        frame = Frame(snapshot.step, tuple(self.pending), snapshot, payload)
        self.pending.clear()
        self.frames.append(frame)
        return frame
