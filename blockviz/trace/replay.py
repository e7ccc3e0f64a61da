"""Frames on demand: replay a session's recorded inputs through the instrumented engine.

A live session runs nano-vllm's plain Scheduler and logs only its inputs: which requests
arrived when, and which token each step sampled. Because the engine is deterministic, feeding
the same inputs to RecordingScheduler reproduces every state, and this time every event and
snapshot is captured. Frames are built the first time a view asks for them and then kept, so
seeking is instant and recording costs the live loop almost nothing.
"""
from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass, field

from blockviz.config import Config
from blockviz.engine.sequence import Sequence
from blockviz.sampling_params import SamplingParams
from blockviz.trace.events import Event
from blockviz.trace.instrumented import RecordingScheduler
from blockviz.trace.recorder import Frame, Recorder
from blockviz.trace.snapshot import take_snapshot


@dataclass(frozen=True)
class Arrival:
    seq_id: int
    token_ids: tuple[int, ...]
    sampling_params: SamplingParams
    label: str


@dataclass
class StepRecord:
    """What the live engine decided in one step, plus what only the live run can know."""
    arrivals: list[Arrival]            # added since the previous step
    token_ids: list[int]               # one per scheduled sequence
    live_events: list[Event] = field(default_factory=list)  # model-side: KV writes, timing
    payload: dict = field(default_factory=dict)             # e.g. K/V values for the KV view


class Replayer:
    """Moves forward only, building one Frame per recorded step."""

    def __init__(self, config: Config, free_order: list[int] | None):
        self.recorder = Recorder()
        self.scheduler = RecordingScheduler(config, self.recorder.emit)
        if free_order is not None:
            self.scheduler.block_manager.free_block_ids.clear()
            self.scheduler.block_manager.free_block_ids.extend(free_order)
        self.block_size = config.kvcache_block_size
        self.seqs: dict[int, Sequence] = {}
        self.labels: dict[int, str] = {}
        self.num_steps = 0

    def arrive(self, arrivals: list[Arrival]):
        for a in arrivals:
            if a.seq_id in self.seqs:
                continue  # requests that came before step 1 already arrived in frame 0
            seq = Sequence(list(a.token_ids), a.sampling_params, block_size=self.block_size)
            seq.seq_id = a.seq_id  # the live run's id, so events and snapshots agree with it
            self.scheduler.add(seq)
            self.seqs[seq.seq_id] = seq
            self.labels[seq.seq_id] = a.label

    def snapshot(self, is_prefill=None, scheduled=None):
        previous = self.recorder.frames[-1].snapshot if self.recorder.frames else None
        bm = self.scheduler.block_manager
        snap = take_snapshot(self.scheduler, self.seqs, self.labels, self.num_steps, previous,
                             bm.touched if previous else None, is_prefill, scheduled)
        bm.touched.clear()
        return snap

    def first_frame(self, arrivals: list[Arrival]) -> Frame:
        self.arrive(arrivals)
        return self.recorder.record(self.snapshot())

    def step(self, record: StepRecord) -> Frame:
        self.arrive(record.arrivals)
        seqs, is_prefill = self.scheduler.schedule()
        if len(seqs) != len(record.token_ids):
            raise RuntimeError("replay diverged from the live run: "
                               f"{len(seqs)} scheduled now, {len(record.token_ids)} then")
        scheduled = {seq.seq_id: (seq.num_cached_tokens, seq.num_scheduled_tokens) for seq in seqs}
        self.scheduler.postprocess(seqs, record.token_ids, is_prefill)
        self.num_steps += 1
        for event in record.live_events:
            self.recorder.emit(event)
        return self.recorder.record(self.snapshot(is_prefill, scheduled), dict(record.payload) or None)


class LazyFrames(SequenceABC):
    """The frames of a live session, replayed the first time they are read."""

    def __init__(self, session):
        self.session = session
        self.replayer: Replayer | None = None

    def reset(self):
        self.replayer = None

    def __len__(self) -> int:
        return self.session.num_steps + 1

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(f"step {index} is not recorded (steps 0..{len(self) - 1})")
        s = self.session
        if self.replayer is None:
            self.replayer = Replayer(s.config, s.free_order)
            first_arrivals = s.step_records[0].arrivals if s.step_records else s.pending_arrivals
            self.replayer.first_frame(first_arrivals)
        frames = self.replayer.recorder.frames
        while len(frames) <= index:
            self.replayer.step(s.step_records[len(frames) - 1])
        return frames[index]
