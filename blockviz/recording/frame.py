"""One step as the views read it: its events, the picture after it, what only the live run knew."""
from dataclasses import dataclass

from blockviz.recording.events import Event
from blockviz.recording.snapshot import Snapshot


@dataclass(frozen=True)
class Frame:
    step: int                   # engine steps done; frame 0 is the state before the first step
    events: tuple[Event, ...]   # what happened during this step
    snapshot: Snapshot          # the state after it
    payload: dict | None = None # what only the live run knew, e.g. K/V values for the KV view
