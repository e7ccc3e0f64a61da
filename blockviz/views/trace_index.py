"""Facts about the past that a view at step s needs, gathered once as frames arrive.

Views must not rescan every frame on each cursor move; a TraceIndex reads each new frame once.
"""
from bisect import bisect_right
from dataclasses import dataclass

import numpy as np

from blockviz.trace.events import CacheProbe, HashRegistered
from blockviz.trace.recorder import Frame


@dataclass(frozen=True)
class ProbeSet:
    step: int                       # the frame whose can_allocate produced these probes
    probes: tuple[CacheProbe, ...]
    admitted: bool                  # the request was allocated and scheduled in that step


class TraceIndex:

    def __init__(self):
        self.upto = 0                                # frames read so far
        self.parents: dict[int, int] = {}            # hash -> parent hash (HashRegistered)
        self.probe_sets: dict[int, list[ProbeSet]] = {}

    def update(self, frames: list[Frame]):
        # can_allocate runs at most once per request per step, so a frame holds at most one probe set each
        for frame in frames[self.upto:]:
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
    index = TraceIndex()
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
    until overwritten). A copy every CHECKPOINT steps bounds a seek's work.
    """
    CHECKPOINT = 32

    def __init__(self, num_blocks: int, block_size: int):
        self.num_blocks, self.block_size = num_blocks, block_size
        self.checkpoints: dict[tuple[str, int], np.ndarray] = {}  # (kv, step) -> pool
        self.which: dict | None = None  # {"layer": ..., "head": ...} of the first write seen

    def values(self, frames: list[Frame], step: int, kv: str = "k") -> np.ndarray | None:
        """[num_blocks, block_size, head_dim] of K (kv="k") or V (kv="v") at `step`; None when no
        step up to it wrote such values."""
        start = max((s for k, s in self.checkpoints if k == kv and s <= step), default=0)
        pool = self.checkpoints[kv, start].copy() if (kv, start) in self.checkpoints else None
        for s in range(start + 1, step + 1):
            written = (frames[s].payload or {}).get("kv")
            if written is not None and written.get(kv) is not None and len(written["slots"]):
                if pool is None:
                    pool = np.zeros((self.num_blocks * self.block_size, written[kv].shape[1]), dtype=np.float32)
                    self.which = {"layer": written["layer"], "head": written["head"]}
                pool[list(written["slots"])] = written[kv]
            if s % self.CHECKPOINT == 0 and pool is not None:
                self.checkpoints[kv, s] = pool.copy()
        return None if pool is None else pool.reshape(self.num_blocks, self.block_size, -1)
