"""Typed events: one per BlockManager, Scheduler or model operation.

Every event is a frozen dataclass with a `kind` tag, so a trace is a list of plain records
that round-trips through JSON (`to_dict` / `event_from_dict`).
"""
from dataclasses import asdict, dataclass, fields
from typing import ClassVar


@dataclass(frozen=True)
class Event:
    kind: ClassVar[str] = ""

    def to_dict(self) -> dict:
        return {"kind": self.kind, **asdict(self)}


@dataclass(frozen=True)
class RequestAdded(Event):
    kind: ClassVar[str] = "add"
    seq_id: int
    num_prompt_tokens: int


@dataclass(frozen=True)
class CacheProbe(Event):
    """can_allocate looked up logical block `index` of a waiting request.

    outcome: "hit_used" (shared, costs no free block), "hit_free" (revived, still costs one),
    "miss" (hash not in the map), "mismatch" (hash found but token ids differ),
    "not_probed" (the last block: can_allocate never probes it),
    "skipped" (after the first miss: hits must form a prefix, so the walk stopped).
    """
    kind: ClassVar[str] = "probe"
    seq_id: int
    index: int
    hash: int
    outcome: str
    block_id: int = -1


@dataclass(frozen=True)
class CanAllocate(Event):
    kind: ClassVar[str] = "can_allocate"
    seq_id: int
    result: int            # cached prefix blocks, or -1
    num_new_blocks: int    # free blocks the admission would consume
    num_free_blocks: int


@dataclass(frozen=True)
class BlockAllocated(Event):
    """_allocate_block popped the head of the free queue."""
    kind: ClassVar[str] = "allocate"
    seq_id: int
    block_id: int
    evicted_hash: int = -1   # the map entry this allocation removed
    dropped_hash: int = -1   # stale content dropped without touching the map (seed 000, question 2)


@dataclass(frozen=True)
class BlockRevived(Event):
    """A cache hit on a free block: it leaves the free queue with its content intact."""
    kind: ClassVar[str] = "revive"
    seq_id: int
    block_id: int
    hash: int


@dataclass(frozen=True)
class BlockShared(Event):
    """A cache hit on a used block: one more block table holds it."""
    kind: ClassVar[str] = "share"
    seq_id: int
    block_id: int
    hash: int
    ref_count: int


@dataclass(frozen=True)
class HashRegistered(Event):
    """hash_blocks registered a block the step just filled."""
    kind: ClassVar[str] = "hash"
    seq_id: int
    block_id: int
    index: int
    hash: int
    parent_hash: int
    replaced_block_id: int = -1  # the block the map pointed to before (#219: later registration wins)


@dataclass(frozen=True)
class BlockReleased(Event):
    """deallocate dropped one reference; at ref_count 0 the block joins the free queue's tail."""
    kind: ClassVar[str] = "release"
    seq_id: int
    block_id: int
    ref_count: int


@dataclass(frozen=True)
class BlockAppended(Event):
    """may_append gave a decoding request a new block (len % block_size == 1)."""
    kind: ClassVar[str] = "append_block"
    seq_id: int
    block_id: int


@dataclass(frozen=True)
class Scheduled(Event):
    kind: ClassVar[str] = "schedule"
    is_prefill: bool
    seq_ids: tuple[int, ...]
    num_tokens: tuple[int, ...]  # tokens computed this step, per request


@dataclass(frozen=True)
class Preempted(Event):
    kind: ClassVar[str] = "preempt"
    seq_id: int


@dataclass(frozen=True)
class TokenSampled(Event):
    """kept=False: the sampled token of an unfinished prefill chunk, thrown away."""
    kind: ClassVar[str] = "token"
    seq_id: int
    token_id: int
    kept: bool = True
    text: str = ""


@dataclass(frozen=True)
class Finished(Event):
    kind: ClassVar[str] = "finish"
    seq_id: int
    reason: str  # "eos" or "length"


@dataclass(frozen=True)
class KVWritten(Event):
    """The model stored K/V for these slots (all layers write the same slots)."""
    kind: ClassVar[str] = "kv_write"
    slots: tuple[int, ...]
    num_layers: int


@dataclass(frozen=True)
class StepTimed(Event):
    kind: ClassVar[str] = "step_time"
    seconds: float
    num_tokens: int


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls for cls in (RequestAdded, CacheProbe, CanAllocate, BlockAllocated, BlockRevived,
                              BlockShared, HashRegistered, BlockReleased, BlockAppended, Scheduled,
                              Preempted, TokenSampled, Finished, KVWritten, StepTimed)
}


def event_from_dict(data: dict) -> Event:
    kind = data.get("kind")
    cls = EVENT_TYPES.get(kind)
    if cls is None:
        raise ValueError(f"unknown event kind {kind!r}")
    names = {f.name for f in fields(cls)}
    missing = names - data.keys()
    if missing:
        raise ValueError(f"event {kind!r} lacks field(s) {sorted(missing)}")
    values = {name: data[name] for name in names}
    for f in fields(cls):
        if str(f.type).startswith("tuple"):
            values[f.name] = tuple(values[f.name])
    return cls(**values)
