"""Facts about the past that a view at step s needs, gathered once as frames arrive.

Views must not rescan every frame on each cursor move; a RecordingIndex reads each new frame once.
"""
from bisect import bisect_right
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from blockviz.recording.events import CacheProbe, HashRegistered
from blockviz.recording.frame import Frame


@dataclass(frozen=True)
class ProbeSet:
    step: int                       # the frame whose can_allocate produced these probes
    probes: tuple[CacheProbe, ...]
    admitted: bool                  # the request was allocated and scheduled in that step


class RecordingIndex:

    def __init__(self):
        self.upto = 0                                # frames read so far
        self.parents: dict[int, int] = {}            # hash -> parent hash (HashRegistered)
        self.probe_sets: dict[int, list[ProbeSet]] = {}

    def update(self, frames: list[Frame]):
        # can_allocate runs at most once per request per step, so a frame holds at most one probe set each
        first = getattr(frames, "first_step", 0)  # a bounded history has forgotten the steps before it
        for step in range(max(self.upto, first), len(frames)):
            frame = frames[step]
            probes: dict[int, list[CacheProbe]] = {}
            for event in frame.events:
                if isinstance(event, CacheProbe):
                    probes.setdefault(event.seq_id, []).append(event)
                elif isinstance(event, HashRegistered):
                    self.parents[event.hash] = event.parent_hash
            for seq_id, seq_probes in probes.items():
                # admitted: allocated right after the probe, hence scheduled in the same step
                admitted = seq_id in frame.snapshot.scheduled
                self.probe_sets.setdefault(seq_id, []).append(ProbeSet(frame.step, tuple(seq_probes), admitted))
        self.upto = len(frames)

    def latest(self, seq_id: int, step: int, admitted_only: bool = False) -> ProbeSet | None:
        """The last probe set of a request at or before `step` (only admissions if asked)."""
        sets = self.probe_sets.get(seq_id, [])
        k = bisect_right([s.step for s in sets], step)
        for probe_set in reversed(sets[:k]):
            if probe_set.admitted or not admitted_only:
                return probe_set
        return None


def admission_probes(timeline, seq_id: int, step: int | None = None) -> tuple[CacheProbe, ...]:
    """The CacheProbe events of the frame where the request was last admitted (at or before step)."""
    index = RecordingIndex()
    index.update(timeline.frames)
    found = index.latest(seq_id, timeline.cursor if step is None else step, admitted_only=True)
    return found.probes if found else ()


def tokens_when_probed(frames: list[Frame], seq_id: int, step: int) -> tuple[int, ...]:
    """A request's tokens as can_allocate saw them during `step` (tokens only change after compute).
    A request missing from the previous frame arrived after it and has only its prompt."""
    before = frames[step - 1].snapshot.seqs.get(seq_id)
    if before is not None:
        return before.token_ids
    seq = frames[step].snapshot.seqs[seq_id]
    return seq.token_ids[:seq.num_prompt_tokens]


class KVIndex:
    """The recorded K and V values of one layer and head in every slot, at any step.

    A live run keeps only each step's writes (frame.payload["kv"]: layer, head, slots, and "k" and
    "v", each [n, head_dim]; traces saved before V was recorded have only "k"). The pool at step s is
    every write up to s, later ones on top, like the real cache (a freed block keeps its old values
    until overwritten). Only blocks ever written are kept, as block -> [block_size, head_dim]: a GPU
    pool of 70 000 blocks of 16 slots at head_dim 128 would take 570 MB as one array. A copy every
    CHECKPOINT steps bounds a seek's work; it shares the arrays of blocks not written since.
    """
    CHECKPOINT = 32

    def __init__(self, num_blocks: int, block_size: int):
        self.num_blocks, self.block_size = num_blocks, block_size
        self.checkpoints: dict[tuple[str, int], dict[int, np.ndarray]] = {}  # (kv, step) -> pool
        self.which: dict | None = None  # {"layer": ..., "head": ...} of the first write seen

    def values(self, frames: list[Frame], step: int, kv: str = "k", blocks: Sequence[int] | None = None
               ) -> np.ndarray | None:
        """[len(blocks), block_size, head_dim] of K (kv="k") or V (kv="v") at `step` (default: every
        block; zeros where nothing was written); None when no step up to it wrote such values."""
        start = max((s for k, s in self.checkpoints if k == kv and s <= step), default=0)
        pool = dict(self.checkpoints.get((kv, start), {}))
        own: set[int] = set()  # blocks whose arrays no checkpoint shares: written in place
        B = self.block_size
        # before a bounded history's window the writes are gone: blocks written only then read as zeros
        for s in range(max(start + 1, getattr(frames, "first_step", 0)), step + 1):
            written = (frames[s].payload or {}).get("kv")
            if written is not None and written.get(kv) is not None and len(written["slots"]):
                self.which = self.which or {"layer": written["layer"], "head": written["head"]}
                slots, values = np.asarray(written["slots"]), written[kv]
                order = np.argsort(slots // B, kind="stable")  # stable: a later write of a slot lands on top
                blocks_written, starts = np.unique(slots[order] // B, return_index=True)
                for block, part in zip(blocks_written.tolist(), np.split(order, starts[1:])):
                    if block not in own:
                        old = pool.get(block)
                        pool[block] = np.zeros((B, values.shape[1]), np.float32) if old is None else old.copy()
                        own.add(block)
                    pool[block][slots[part] % B] = values[part]
            if s % self.CHECKPOINT == 0 and pool:
                self.checkpoints[kv, s] = dict(pool)
                own.clear()
        if not pool:
            return None
        ids = range(self.num_blocks) if blocks is None else blocks
        out = np.zeros((len(ids),) + next(iter(pool.values())).shape, np.float32)
        for k, block in enumerate(ids):
            if block in pool:
                out[k] = pool[block]
        return out
