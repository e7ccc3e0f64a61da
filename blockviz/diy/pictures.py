"""One side of a check as the views read it: the picture after each step, a Timeline.

Each picture is taken from the live objects with recording.rebuild.picture_of, the picture a Simulator
that does not record shows: a replay would rebuild the engine's state, not the learner's, and the
learner's code reports no events. Both sides are drawn this way, so whatever looks different is.
The one event a picture carries is what schedule() decided (prefill or decode, who ran).
"""
from blockviz.diy.faults import described
from blockviz.session import Session
from blockviz.recording.events import Event
from blockviz.recording.frame import Frame
from blockviz.recording.io import config_record
from blockviz.recording.rebuild import picture_of
from blockviz.recording.snapshot import Snapshot
from blockviz.recording.timeline import Timeline


class Pictures(Timeline):

    def __init__(self, sim: Session):
        super().__init__([], config_record(sim.config))
        self.tokenizer = sim.tokenizer  # Timeline.decode shows token ids as the Simulator's text
        self.labels = sim.labels
        self.unreadable: str | None = None  # why the latest step could not be drawn

    def take(self, sim: Session, step: int, events: tuple[Event, ...] = ()):
        try:
            picture = picture_of(sim.scheduler, sim.seqs, sim.labels, step)
        except Exception as e:  # a learner's state can be one no engine reaches (a block twice in the queue)
            self.unreadable = described(e)
            return
        self.frames.append(Frame(step, events, Snapshot(picture.history, step, events)))
        self.cursor = step
