"""Frames on demand, rebuilt: a session's recorded inputs run again through the instrumented engine.

A live session runs nano-vllm's plain Scheduler (with its block policy's BlockManager,
blockviz.policies) and logs only its inputs: which requests arrived when, and which token each
step sampled. Because the engine is deterministic, feeding the same inputs to RecordingScheduler
under the same policy reproduces every state, and this time every event is
captured. After each replayed step the Recorder writes into the History only what the step's
events say changed (the blocks it touched, the hashes it registered or evicted, the requests it
scheduled, added, preempted or released), so building every step's picture costs what changed,
never the pool or the queues.
"""
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass

from blockviz.config import Config
from blockviz.engine.scheduler import Scheduler
from blockviz.engine.sequence import Sequence, SequenceStatus
from blockviz.policies import Policy
from blockviz.sampling_params import SamplingParams
from blockviz.recording import events as ev
from blockviz.recording.frame import Frame
from blockviz.recording.history import BlockView, History, SeqHistory
from blockviz.recording.instrumented import RecordingScheduler
from blockviz.recording.instrumented_radix import RecordingRadixCache
from blockviz.recording.keyframe import restore
from blockviz.recording.radix_tree import RecordedTree, views_of
from blockviz.recording.snapshot import Snapshot


@dataclass(frozen=True)
class Arrival:
    seq_id: int
    token_ids: tuple[int, ...]
    sampling_params: SamplingParams
    label: str


@dataclass(frozen=True, slots=True)
class StepRecord:
    """What the live engine decided in one step, plus what only the live run can know.
    Kept for every step (slots, tuples, no empty containers): it is most of a step's memory."""
    arrivals: tuple[Arrival, ...]        # added since the previous step
    token_ids: tuple[int, ...]           # one per scheduled sequence
    live_events: tuple[ev.Event, ...] = ()  # model-side: KV writes, timing
    payload: dict | None = None          # e.g. K/V values for the KV view
    failed: str | None = None            # the error that ended this step's batch (token_ids is then empty)


def end_failed_batch(scheduler: Scheduler, seqs: list[Sequence]):
    """A step raised after scheduling (the model, a hook): finish its requests and release their
    blocks, so the pool is consistent and the next request runs as if they had ended normally."""
    for seq in seqs:
        seq.num_scheduled_tokens = 0
        seq.status = SequenceStatus.FINISHED
        scheduler.block_manager.deallocate(seq)
        for queue in (scheduler.running, scheduler.waiting):
            if seq in queue:
                queue.remove(seq)


def outgrown(scheduler: Scheduler) -> list[Sequence]:
    """After schedule() found nothing to run: the request that preempted itself, now at the head of
    waiting, needs more blocks than the whole pool and can never be admitted again."""
    return [scheduler.waiting[0]] if scheduler.waiting else []


TREE_EVENTS = frozenset(ev.TREE_EVENTS)
STATUS_NAMES = {status: status.name.lower() for status in SequenceStatus}
RUNNING, WAITING = SequenceStatus.RUNNING, SequenceStatus.WAITING


def status_name(seq: Sequence) -> str:
    status = seq.status  # compared by identity: an Enum's hash is Python code, and this runs per request per step
    return "running" if status is RUNNING else "waiting" if status is WAITING else STATUS_NAMES[status]


class Recorder:
    """Writes one engine's steps into a History: after each step, only what its events touched."""

    def __init__(self, history: History, scheduler: Scheduler, seqs: dict[int, Sequence]):
        self.history, self.scheduler, self.seqs = history, scheduler, seqs
        self.tokens_of: dict[int, tuple[list, tuple]] = {}  # block id -> (its token list, that list as a tuple)
        self.tree = self.start_tree()

    def start_tree(self) -> RecordedTree | None:
        """A policy with a radix tree (policy "sglang"): the tree as the events rebuild it, from the
        engine's tree now (an instrumented one is new: its root only), written into the History."""
        cache = getattr(self.scheduler.block_manager, "tree", None)
        if cache is None:
            return None
        h, step = self.history, self.history.num_steps
        h.tree_config = (cache.page_size, cache.eviction_policy)
        views = views_of(cache)
        if isinstance(cache, RecordingRadixCache):
            assert len(views) == 1, "the recording starts from an empty tree (a policy with a tree has no keyframes)"
            tree = RecordedTree(cache.page_size, cache.eviction_policy)   # its root's ticks are 1 and 2, as there
        else:   # a picture of a live engine (history_of): the tree as it is
            tree = RecordedTree.from_views(views, cache.page_size, cache.eviction_policy)
        for view in tree.views():
            h.set_node(step, view.node_id, view)
        return tree

    def block_view(self, block) -> BlockView:
        known = self.tokens_of.get(block.block_id)
        if known is None or known[0] is not block.token_ids:  # BlockManager assigns a new list, never edits one
            known = self.tokens_of[block.block_id] = (block.token_ids, tuple(block.token_ids))
        return BlockView(block.block_id, block.ref_count, block.hash, known[1])

    def record(self, events: list[ev.Event], touched_blocks, payload: dict | None = None):
        h, bm, step = self.history, self.scheduler.block_manager, self.history.num_steps
        seq_ids, hashes = {}, set()  # requests the step changed: the scheduled ones first, in order
        nodes = set()                # the radix tree's nodes the step changed
        kept = []                    # the step's events, each request's probes folded (see fold)
        probes: list[ev.CacheProbe] = []
        for e in events:  # by type, most common first: a decode step is mostly TokenSampled
            kind = type(e)
            if kind is ev.CacheProbe:
                if probes and probes[0].seq_id != e.seq_id:
                    kept.append(self.fold(probes, step))
                probes.append(e)
                continue
            if probes:
                kept.append(self.fold(probes, step))
            kept.append(e)
            if kind is ev.TokenSampled or kind is ev.CanAllocate:
                continue  # covered by Scheduled, or (a walk that did not admit) changed nothing
            if kind is ev.Scheduled:
                seq_ids = {**dict.fromkeys(e.seq_ids), **seq_ids}
            elif kind is ev.BlockAllocated:
                h.leave_free_queue(step, e.block_id)
                if e.evicted_hash != -1:
                    hashes.add(e.evicted_hash)
            elif kind is ev.BlockRevived:
                h.leave_free_queue(step, e.block_id)
            elif kind is ev.BlockReleased:
                if e.ref_count == 0:
                    h.join_free_queue(step, e.block_id)
                seq_ids[e.seq_id] = None
            elif kind is ev.FreedToHead:
                h.move_to_free_queue_head(step, e.block_ids)
            elif kind is ev.HashRegistered:
                hashes.add(e.hash)
            elif kind is ev.RequestAdded:
                seq_ids[e.seq_id] = None
                h.to_back(step, e.seq_id)
            elif kind is ev.Preempted:
                seq_ids[e.seq_id] = None
                h.to_front(step, e.seq_id)
            elif kind in TREE_EVENTS:
                nodes.update(self.tree.apply(e))
            elif kind is ev.PageFreed:
                h.join_free_queue(step, e.block_id)
            elif kind is ev.PageReleased:
                if e.freed:
                    h.join_free_queue(step, e.block_id)
                seq_ids[e.seq_id] = None
            elif kind is ev.PageDeduplicated:
                seq_ids[e.seq_id] = None
                h.seqs[e.seq_id].table_rewritten()
        if probes:
            kept.append(self.fold(probes, step))
        for block_id in touched_blocks:
            h.set_block(step, self.block_view(bm.blocks[block_id]))
        for hh in hashes:
            h.set_hash(step, hh, bm.hash_to_block_id.get(hh, -1))
        for node_id in nodes:
            node = self.tree.nodes.get(node_id)
            h.set_node(step, node_id, None if node is None else node.view())
        seqs, histories = self.seqs, h.seqs
        for seq_id in seq_ids:
            seq, history = seqs[seq_id], histories[seq_id]
            status = status_name(seq)
            if status == "running" and history.status.last != "running":
                h.to_back(step, seq_id)  # admitted: joins running's tail, in the order scheduled
            history.update(step, seq.num_tokens, seq.num_cached_tokens, seq.block_table, status)
        h.end_step(ev.pack_events(kept), payload)

    def fold(self, probes: list[ev.CacheProbe], step: int) -> ev.ProbesOf:
        """One request's can_allocate walk (at most one per request per step) kept with the request,
        once per change; the step keeps a ProbesOf marking its place. Empties `probes`."""
        seq_id = probes[0].seq_id
        self.history.seqs[seq_id].probes.set(step, ev.pack_events(probes))
        probes.clear()
        return ev.ProbesOf(seq_id)


class Rebuilder:
    """Moves forward only, recording one step of the History per recorded step."""

    def __init__(self, config: Config, free_order: list[int] | None, policy: str | Policy = "nano-vllm"):
        self.events: list[ev.Event] = []
        self.scheduler = RecordingScheduler(config, self.events.append, policy)
        if free_order is not None:
            self.scheduler.block_manager.free_block_ids.clear()
            self.scheduler.block_manager.free_block_ids.extend(free_order)
        self.block_size = config.kvcache_block_size
        self.history = History(self.block_size, config.num_kvcache_blocks, free_order)
        self.seqs: dict[int, Sequence] = {}
        self.recorder = Recorder(self.history, self.scheduler, self.seqs)

    @classmethod
    def resumed(cls, config: Config, policy: str | Policy, keyframe, where: str) -> "Rebuilder":
        """A replay that goes on from a trace's keyframe (recording/keyframe.py) instead of step 0."""
        rebuilder = cls(config, None, policy)
        rebuilder.seqs.update(restore(rebuilder.scheduler, keyframe, config, where))
        labels = {s.seq_id: s.label for s in keyframe.seqs}
        arrived = {s.seq_id: s.arrived for s in keyframe.seqs}
        rebuilder.history = history_of(rebuilder.scheduler, rebuilder.seqs, labels, keyframe.keyframe, arrived)
        rebuilder.recorder = Recorder(rebuilder.history, rebuilder.scheduler, rebuilder.seqs)
        return rebuilder

    def arrive(self, arrivals: list[Arrival]):
        for a in arrivals:
            if a.seq_id in self.seqs:
                continue  # requests that came before step 1 already arrived in frame 0
            seq = Sequence(list(a.token_ids), a.sampling_params, block_size=self.block_size)
            seq.seq_id = a.seq_id  # the live run's id, so events and pictures agree with it
            self.seqs[seq.seq_id] = seq
            self.history.add_seq(SeqHistory(seq.seq_id, a.label, seq.token_ids, seq.num_prompt_tokens,
                                            seq.max_tokens, self.history.num_steps))
            self.scheduler.add(seq)

    def close_step(self, payload: dict | None = None):
        bm = self.scheduler.block_manager
        self.recorder.record(self.events, bm.touched, payload)
        self.events.clear()
        bm.touched.clear()

    def first_frame(self, arrivals: list[Arrival]):
        self.arrive(arrivals)
        self.close_step()

    def step(self, record: StepRecord):
        self.arrive(record.arrivals)
        try:
            seqs, is_prefill = self.scheduler.schedule()
        except RuntimeError:
            if record.failed is None:
                raise
            seqs = outgrown(self.scheduler)
        if record.failed is not None:
            end_failed_batch(self.scheduler, seqs)
            self.events.extend(ev.Finished(seq.seq_id, "error") for seq in seqs)
            self.events.extend(record.live_events)
            self.close_step()
            return
        if len(seqs) != len(record.token_ids):
            raise RuntimeError("replay diverged from the live run: "
                               f"{len(seqs)} scheduled now, {len(record.token_ids)} then")
        self.scheduler.postprocess(seqs, record.token_ids, is_prefill)
        self.events.extend(record.live_events)
        self.close_step(dict(record.payload) if record.payload else None)


class FrameCache:
    """The last few frames read, so a view that reads one step many times unpacks it once."""

    def __init__(self, size: int = 64):
        self.size = size
        self.frames: OrderedDict[int, Frame] = OrderedDict()

    def get(self, history: History, step: int) -> Frame:
        frame = self.frames.get(step)
        if frame is None:
            events = history.events(step)
            frame = Frame(step, events, Snapshot(history, step, events), history.payload(step))
            self.frames[step] = frame
            if len(self.frames) > self.size:
                self.frames.popitem(last=False)
        else:
            self.frames.move_to_end(step)
        return frame

    def clear(self):
        self.frames.clear()


class HistoryFrames(SequenceABC):
    """The frames of a finished recording (a format 1 trace, read whole)."""

    def __init__(self, history: History):
        self.history = history
        self.cache = FrameCache()

    @property
    def first_step(self) -> int:
        return self.history.first_step

    def __len__(self) -> int:
        return self.history.num_steps

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        return self.cache.get(self.history, index)


class LazyFrames(SequenceABC):
    """The frames of a live session or a loaded trace, replayed the first time they are read. A
    trace with keyframes (recording/keyframe.py) resumes from the latest one before a far step."""

    JUMP = 200  # steps: a keyframe at least this far past the replayed end is worth starting from

    def __init__(self, session):
        self.session = session
        self.rebuilder: Rebuilder | None = None
        self.resumed_at: int | None = None  # the keyframe the replay started from (None: step 0)
        self.cache = FrameCache()

    def reset(self):
        self.rebuilder = None
        self.resumed_at = None
        self.cache.clear()

    @property
    def first_step(self) -> int:
        if self.rebuilder is None or self.resumed_at is not None:
            return 0  # a trace's keyframes reach every step
        return self.rebuilder.history.first_step

    def __len__(self) -> int:
        return self.session.num_steps + 1

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(f"step {index} is not recorded (steps {self.first_step}..{len(self) - 1})")
        return self.cache.get(self.build(index), index)

    def keyframe_before(self, step: int) -> int | None:
        """The latest keyframe step < `step` of a loaded trace (a live session has none)."""
        steps = getattr(self.session, "keyframe_steps", ())
        i = bisect_left(steps, step)
        return steps[i - 1] if i else None

    def start(self, step: int):
        """A new replay for reading `step`: from the latest keyframe before it, else from step 0.
        (The keyframe's own step comes from an earlier start: a resumed replay has no events for it.)"""
        s = self.session
        self.reset()
        k = self.keyframe_before(step)
        if k is not None:
            self.rebuilder, self.resumed_at = Rebuilder.resumed(s.config, s.policy, *s.keyframe(k)), k
            return
        self.rebuilder = Rebuilder(s.config, s.free_order, s.policy)
        first_arrivals = s.step_records[0].arrivals if s.step_records else s.pending_arrivals
        self.rebuilder.first_frame(first_arrivals)

    def build(self, step: int) -> History:
        """Replay up to `step` (no further) and return the History that holds it."""
        s = self.session
        try:
            if self.rebuilder is None:
                self.start(step)
            else:
                built = self.rebuilder.history.num_steps - 1
                before = self.resumed_at is not None and step <= self.resumed_at
                k = self.keyframe_before(step) if step > built else None
                if before or (k is not None and k >= built + self.JUMP):
                    self.start(step)
            history = self.rebuilder.history
            while history.num_steps <= step:
                self.rebuilder.step(s.step_records[history.num_steps - 1 - s.records_dropped])
        except Exception as e:  # a live run replays exactly; a file may not (its author edited it)
            at = self.rebuilder.history.num_steps if self.rebuilder is not None else step
            self.reset()
            raise s.replay_error(at, e) from None
        return history


def history_of(scheduler: Scheduler, seqs: dict[int, Sequence], labels: dict[int, str], step: int,
               arrived: dict[int, int] | None = None) -> History:
    """A History that starts at `step` with the engine as it is now (its step closed, no events)."""
    bm = scheduler.block_manager
    free = list(bm.free_block_ids)
    history = History(bm.block_size, len(bm.blocks), free + sorted(bm.used_block_ids), start=step)
    recorder = Recorder(history, scheduler, seqs)
    for block_id in bm.used_block_ids:
        history.leave_free_queue(step, block_id)
    for block in bm.blocks:
        if block.ref_count or block.hash != -1 or block.token_ids:
            history.set_block(step, recorder.block_view(block))
    for h, block_id in bm.hash_to_block_id.items():
        history.set_hash(step, h, block_id)
    for seq_id, seq in seqs.items():
        came = step if arrived is None else arrived[seq_id]
        history.add_seq(SeqHistory(seq_id, labels[seq_id], seq.token_ids, seq.num_prompt_tokens, seq.max_tokens, came))
        history.seqs[seq_id].update(step, len(seq), seq.num_cached_tokens, seq.block_table, status_name(seq))
    history.set_queues(step, tuple(s.seq_id for s in scheduler.waiting), tuple(s.seq_id for s in scheduler.running))
    recorder.record([], ())
    return history


def picture_of(scheduler: Scheduler, seqs: dict[int, Sequence], labels: dict[int, str], step: int) -> Snapshot:
    """The picture of a live engine now (a session that does not record): a History of one step."""
    return Snapshot(history_of(scheduler, seqs, labels, step), step)
