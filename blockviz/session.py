"""An engine (scheduler + block manager + whatever computes tokens) with its recording.

Simulator and LLMEngine are Sessions: they differ only in `compute`, the part that turns a
scheduled batch into one sampled token per request. The live loop runs nano-vllm's plain
Scheduler, its BlockManager the session's block policy's (blockviz.policies: nano-vllm's own by
default), and logs its inputs; frames (events + snapshots) are replayed from that log when a
view first asks for them (blockviz/recording/rebuild.py).
"""
from dataclasses import dataclass
from operator import attrgetter
from time import perf_counter

from blockviz import checks
from blockviz.config import Config
from blockviz.engine.sequence import Sequence, SequenceStatus
from blockviz.limits import check_can_ever_run
from blockviz.policies import Policy, get as get_policy
from blockviz.policies.packed import PackedSequence
from blockviz.policies.scheduler import PolicyScheduler
from blockviz.recording.events import Event, StepTimed
from blockviz.recording.frame import Frame
from blockviz.recording.io import TraceWriter, config_record, save_trace
from blockviz.recording.rebuild import Arrival, LazyFrames, StepRecord, end_failed_batch, outgrown, picture_of
from blockviz.recording.snapshot import Snapshot
from blockviz.recording.timeline import Timeline
from blockviz.sampling_params import SamplingParams
from blockviz.brief import brief


def request_label(index: int) -> str:
    """A, B, ..., Z, AA, AB, ...: short names for the requests of one session."""
    label = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        label = chr(ord("A") + rest) + label
    return label


@dataclass(frozen=True)
class Batch:
    """What one step scheduled: kept as Session.last_batch for drivers (a step-time model, a replay)."""
    seqs: tuple[Sequence, ...]
    is_prefill: bool
    num_tokens: int   # tokens scheduled: prompt chunks in a prefill step, one a request in a decode step

    @property
    def num_seqs(self) -> int:
        return len(self.seqs)


scheduled_tokens = attrgetter("num_scheduled_tokens")   # a C call a request, every step


def check_new_sequence(seq: Sequence):
    """What Session.add_sequence takes: a fresh Sequence of valid token ids and sampling params."""
    if not isinstance(seq, Sequence):
        raise ValueError(f"add_sequence takes a Sequence, got {type(seq).__name__}")
    if seq.status != SequenceStatus.WAITING or seq.block_table or seq.num_completion_tokens:
        raise ValueError(f"sequence {seq.seq_id} has already run; add a new Sequence")
    if isinstance(seq, PackedSequence):   # its token ids were made from this array: checked in two passes
        checks.token_array("prompt", seq.prompt)
    else:
        checks.token_ids("prompt", seq.token_ids)
    checks.whole("max_tokens", seq.max_tokens, 1)
    checks.flag("ignore_eos", seq.ignore_eos)


class Session(Timeline):
    """record: keep every step for the views (default). history: keep only the newest N steps
    (live streams, the demo; trimmed in batches, so up to N + N/4); a view or seek before the
    window says so. record_to: a file the steps are appended to as they run (recording/io.py).
    policy: the block policy by name (blockviz.policies.names()), or a Policy; the recording
    replays the run under the same one."""

    def __init__(self, config: Config, record: bool = True, history: int | None = None,
                 record_to: str | None = None, policy: str | Policy = "nano-vllm"):
        if history is not None:
            checks.whole("history (steps kept; None keeps every step)", history, 1)
        self.config = config
        self.record = record
        self.history = history
        if config.num_kvcache_blocks < 1:
            raise ValueError("the engine needs Config.num_kvcache_blocks >= 1 "
                             f"(got {config.num_kvcache_blocks}; -1 is only resolved by a model runner)")
        self.policy = get_policy(policy)
        if (record or record_to is not None) and not self.policy.records:
            raise ValueError(f"the {self.policy.name!r} policy cannot be recorded (the recording's events do not "
                             "describe its decisions); pass record=False")
        self.scheduler = PolicyScheduler(config, self.policy)
        self.seqs: dict[int, Sequence] = {}
        self.labels: dict[int, str] = {}
        self.num_added = 0
        self.num_steps = 0
        self.last_batch: Batch | None = None  # what the latest step scheduled
        self.free_order: list[int] | None = None
        self.step_records: list[StepRecord] = []  # inputs of steps records_dropped + 1, ... not replayed yet
        self.records_dropped = 0                   # inputs already replayed and let go (bounded history)
        self.pending_arrivals: list[Arrival] = []
        self.live_events: list[Event] = []   # model-side events of the step being computed
        self.live_payload: dict = {}
        super().__init__(LazyFrames(self) if record else [], config_record(config))
        if record_to is not None and not record:
            raise ValueError("record_to needs record=True")
        self.record_to = record_to
        self.writer: TraceWriter | None = None  # opened at the first step, once the engine is fully built

    # --- requests ---------------------------------------------------------------------

    def add_sequence(self, seq: Sequence, label: str | None = None) -> Sequence:
        check_new_sequence(seq)
        checks.label(label)
        self.check_request(seq)
        check_can_ever_run(seq, self.config.num_kvcache_blocks, self.config.kvcache_block_size)
        self.scheduler.add(seq)
        label = label or request_label(self.num_added)
        self.num_added += 1
        self.seqs[seq.seq_id] = seq
        self.labels[seq.seq_id] = label
        if self.record:
            params = SamplingParams(seq.temperature, seq.max_tokens, seq.ignore_eos)
            self.pending_arrivals.append(Arrival(seq.seq_id, tuple(seq.token_ids), params, label))
            if self.num_steps == 0:
                self.frames.reset()  # frame 0 shows every request that came before step 1
                self.notify()
        return seq

    def check_request(self, seq: Sequence):
        """Hook for engines with extra limits (the model's max_model_len)."""

    def arrange_free_queue(self, order: list[int]):
        """Start from a pool whose free queue is in this order (as if earlier requests had come
        and gone), e.g. so that a lesson's request gets block_table [5, 2, 7]."""
        bm = self.scheduler.block_manager
        if self.num_steps or bm.used_block_ids:
            raise ValueError("the free queue can only be arranged before the first step")
        if sorted(order) != list(range(len(bm.blocks))):
            raise ValueError(f"free queue order must list every block id 0..{len(bm.blocks) - 1} once, got {order}")
        bm.free_block_ids.clear()
        bm.free_block_ids.extend(order)
        self.free_order = list(order)
        if self.record:
            self.frames.reset()
            self.notify()

    # --- the engine -------------------------------------------------------------------

    @property
    def can_run(self) -> bool:
        return True

    def compute(self, seqs: list[Sequence], is_prefill: bool) -> list[int]:
        raise NotImplementedError

    def emit_live(self, event: Event, **payload):
        """For compute(): an event (and data) only the live run knows, kept with this step."""
        self.live_events.append(event)
        self.live_payload.update(payload)

    def is_finished(self) -> bool:
        return self.scheduler.is_finished()

    def advance(self):
        """One engine step, without building its frame."""
        if self.is_finished():
            raise RuntimeError("nothing to run: every request has finished (add one first)")
        start = perf_counter()
        failed, token_ids = None, []
        try:
            seqs, is_prefill = self.scheduler.schedule()
        except RuntimeError as e:  # nano-vllm's assert: the one request left outgrew the whole pool
            failed, seqs = e, outgrown(self.scheduler)
            end_failed_batch(self.scheduler, seqs)
        num_tokens = sum(map(scheduled_tokens, seqs))
        self.last_batch = Batch(tuple(seqs), is_prefill if failed is None else False, num_tokens)
        if failed is None:
            try:
                token_ids = self.compute(seqs, is_prefill)
                self.check_tokens(seqs, token_ids)
            except Exception as e:
                failed = e  # the batch ends with an error; the engine stays consistent and usable
                token_ids = []
                self.live_events, self.live_payload = [], {}
                end_failed_batch(self.scheduler, seqs)
            else:
                self.scheduler.postprocess(seqs, token_ids, is_prefill)
        self.num_steps += 1
        if self.record:
            self.live_events.append(StepTimed(perf_counter() - start, num_tokens))
            self.step_records.append(StepRecord(tuple(self.pending_arrivals), tuple(token_ids),
                                                tuple(self.live_events), self.live_payload or None,
                                                None if failed is None else repr(failed)))
            if self.record_to is not None:
                writer = self.trace_writer()
                writer.step(self.num_steps, self.step_records[-1])
                if writer.keyframe_due(self.num_steps):
                    writer.keyframe(self.num_steps)
            self.pending_arrivals, self.live_events, self.live_payload = [], [], {}
            if self.history is not None and self.num_steps - self.first_step >= self.history + max(1, self.history // 4):
                self.forget(self.num_steps - self.history)
        if failed is not None:
            raise RuntimeError(f"step {self.num_steps} failed, so its requests "
                               f"({', '.join(self.labels[s.seq_id] for s in seqs)}) were ended and their blocks "
                               f"released; the engine can go on: {failed!r}") from failed

    def check_tokens(self, seqs: list[Sequence], token_ids):
        if len(token_ids) != len(seqs) or not all(isinstance(t, int) and t >= 0 for t in token_ids):
            raise ValueError(f"compute must return one token id (an int >= 0) per scheduled request: "
                             f"{len(seqs)} scheduled, got {brief(token_ids, 200)}")

    @property
    def first_step(self) -> int:
        return self.frames.first_step if self.record else self.num_steps

    def forget(self, step: int):
        """Let go of every step before `step`: build the pictures up to it (they are recorded as
        changes, so this costs what those steps changed), then drop what no later step reads."""
        history = self.frames.build(self.num_steps)  # every request so far is in it: the rest are gone for good
        history.forget_before(step)
        self.frames.cache.clear()
        replayed = history.num_steps - 1  # inputs of steps up to here are in the history now
        del self.step_records[:replayed - self.records_dropped]
        self.records_dropped = replayed
        for seqs in (self.seqs, self.frames.rebuilder.seqs):  # the live engine's requests and the replay's
            for seq_id in [i for i in seqs if i not in history.seqs and seqs[i].is_finished]:
                del seqs[seq_id]
        for seq_id in [i for i in self.labels if i not in self.seqs]:
            del self.labels[seq_id]
        if self.cursor < step:
            self.cursor = step

    def step(self) -> Frame | None:
        """Run one engine step. Returns its frame (None when not recording)."""
        follow = self.cursor == self.last_step
        try:
            self.advance()
        finally:  # a failed step is a step too: views show how its batch ended
            self.moved(follow)
        return self.frames[self.num_steps] if self.record else None

    def run(self, max_steps: int | None = None) -> int:
        """Step until every request finishes (or max_steps). Returns the steps taken."""
        follow = self.cursor == self.last_step
        first = self.num_steps
        try:
            while not self.is_finished() and (max_steps is None or self.num_steps - first < max_steps):
                self.advance()
        finally:
            if self.num_steps > first:
                self.moved(follow)
        return self.num_steps - first

    def moved(self, follow: bool):
        """After new steps: a cursor that was at the end stays at the end; views hear once."""
        if not self.record:
            return
        if follow:
            self.cursor = self.last_step
        self.notify()

    def forward(self) -> Frame:
        """Move the cursor on; past the recorded end, run the engine one step."""
        if self.record and self.cursor == self.last_step and not self.is_finished():
            return self.step()  # the cursor was at the end, so it follows the new step
        return super().forward()

    def snapshot(self, step: int | None = None) -> Snapshot:
        if not self.record:
            return picture_of(self.scheduler, self.seqs, self.labels, self.num_steps)
        return super().snapshot(step)

    def save(self, path):
        """Write the trace so far (recording/io.py); blockviz.recording.io.load_trace reads it back."""
        save_trace(self, path)

    def trace_writer(self) -> TraceWriter:
        if self.writer is None:
            self.writer = TraceWriter(self, self.record_to)
        return self.writer

    def close(self):
        """Finish the file given as record_to (requests added after the last step included)."""
        if self.record_to is not None:
            writer = self.trace_writer()
            writer.pending(self.pending_arrivals)
            writer.close()
            self.record_to = None
