"""An engine (scheduler + block manager + whatever computes tokens) with its recording.

Simulator and LLMEngine are Sessions: they differ only in `compute`, the part that turns a
scheduled batch into one sampled token per request.
"""
from time import perf_counter

from blockviz.config import Config
from blockviz.engine.scheduler import Scheduler
from blockviz.engine.sequence import Sequence
from blockviz.trace.events import StepTimed
from blockviz.trace.instrumented import RecordingScheduler
from blockviz.trace.recorder import Frame, Recorder
from blockviz.trace.snapshot import Snapshot, take_snapshot
from blockviz.trace.timeline import Timeline


def request_label(index: int) -> str:
    """A, B, ..., Z, AA, AB, ...: short names for the requests of one session."""
    label = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        label = chr(ord("A") + rest) + label
    return label


def config_meta(config: Config) -> dict:
    return {"block_size": config.kvcache_block_size, "num_blocks": config.num_kvcache_blocks,
            "max_num_seqs": config.max_num_seqs, "max_num_batched_tokens": config.max_num_batched_tokens,
            "eos": config.eos}


class Session(Timeline):

    def __init__(self, config: Config, record: bool = True):
        self.config = config
        self.recorder = Recorder() if record else None
        if record:
            self.scheduler: Scheduler = RecordingScheduler(config, self.recorder.emit)
        else:
            self.scheduler = Scheduler(config)
        self.seqs: dict[int, Sequence] = {}
        self.labels: dict[int, str] = {}
        self.num_steps = 0
        super().__init__(self.recorder.frames if record else [], config_meta(config))
        if record:
            self.recorder.record(self._snapshot(None, {}))

    # --- the engine -------------------------------------------------------------------

    @property
    def can_run(self) -> bool:
        return self.recorder is not None

    def add_sequence(self, seq: Sequence, label: str | None = None) -> Sequence:
        self.check_request(seq)
        self.scheduler.add(seq)  # raises ValueError and leaves everything unchanged if it can never run
        self.seqs[seq.seq_id] = seq
        self.labels[seq.seq_id] = label or request_label(len(self.labels))
        if self.recorder is not None and self.num_steps == 0:
            self.recorder.replace_last(self._snapshot(None, {}))
            self.notify()
        return seq

    def check_request(self, seq: Sequence):
        """Hook for engines with extra limits (the model's max_model_len)."""

    def compute(self, seqs: list[Sequence], is_prefill: bool) -> list[int]:
        raise NotImplementedError

    def is_finished(self) -> bool:
        return self.scheduler.is_finished()

    def step(self) -> Frame | None:
        """Run one engine step. Returns its frame (None when not recording)."""
        if self.is_finished():
            raise RuntimeError("nothing to run: every request has finished (add one first)")
        start = perf_counter()
        seqs, is_prefill = self.scheduler.schedule()
        scheduled = {seq.seq_id: (seq.num_cached_tokens, seq.num_scheduled_tokens) for seq in seqs}
        token_ids = self.compute(seqs, is_prefill)
        self.scheduler.postprocess(seqs, token_ids, is_prefill)
        self.num_steps += 1
        if self.recorder is None:
            return None
        self.recorder.emit(StepTimed(perf_counter() - start, sum(n for _, n in scheduled.values())))
        follow = self.cursor == self.last_step
        frame = self.recorder.record(self._snapshot(is_prefill, scheduled))
        if follow:
            self.cursor = self.last_step
        self.notify()
        return frame

    def run(self, max_steps: int | None = None) -> int:
        """Step until every request finishes (or max_steps). Returns the steps taken."""
        steps = 0
        while not self.is_finished() and (max_steps is None or steps < max_steps):
            self.step()
            steps += 1
        return steps

    def forward(self) -> Frame:
        """Move the cursor on; past the recorded end, run the engine one step."""
        if self.cursor == self.last_step and not self.is_finished():
            self.step()
            return self.seek(self.last_step)
        return super().forward()

    def snapshot(self, step: int | None = None) -> Snapshot:
        if self.recorder is None:
            return self._snapshot(None, {})
        return super().snapshot(step)

    def _snapshot(self, is_prefill: bool | None, scheduled: dict) -> Snapshot:
        previous = self.frames[-1].snapshot if self.frames else None
        bm = self.scheduler.block_manager
        touched = getattr(bm, "touched", None)
        snapshot = take_snapshot(self.scheduler, self.seqs, self.labels, self.num_steps, previous,
                                 touched, is_prefill, scheduled)
        if touched is not None:
            touched.clear()
        return snapshot
