"""Typed events: one per BlockManager, Scheduler or model operation.

Every event is a frozen msgspec Struct with a `kind` name and a small integer tag, so a step's
events pack into a few bytes each (the recording keeps them packed, see recording/history.py) and
round-trip through JSON by name (`to_dict` / `event_from_dict`).
"""
from typing import ClassVar, Union

import msgspec


class Event(msgspec.Struct, frozen=True, array_like=True, tag_field="kind"):
    kind: ClassVar[str] = ""

    def to_dict(self) -> dict:
        return {"kind": self.kind, **msgspec.structs.asdict(self)}


class RequestAdded(Event, tag=1):
    kind: ClassVar[str] = "add"
    seq_id: int
    num_prompt_tokens: int


class CacheProbe(Event, tag=2):
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


class CanAllocate(Event, tag=3):
    kind: ClassVar[str] = "can_allocate"
    seq_id: int
    result: int            # cached prefix blocks, or -1
    num_new_blocks: int    # free blocks the admission would consume
    num_free_blocks: int


class BlockAllocated(Event, tag=4):
    """_allocate_block popped the head of the free queue."""
    kind: ClassVar[str] = "allocate"
    seq_id: int
    block_id: int
    evicted_hash: int = -1   # the map entry this allocation removed
    dropped_hash: int = -1   # stale content dropped without touching the map (the seed000_q2_stale scenario)


class BlockRevived(Event, tag=5):
    """A cache hit on a free block: it leaves the free queue with its content intact."""
    kind: ClassVar[str] = "revive"
    seq_id: int
    block_id: int
    hash: int


class BlockShared(Event, tag=6):
    """A cache hit on a used block: one more block table holds it."""
    kind: ClassVar[str] = "share"
    seq_id: int
    block_id: int
    hash: int
    ref_count: int


class HashRegistered(Event, tag=7):
    """hash_blocks registered a block the step just filled."""
    kind: ClassVar[str] = "hash"
    seq_id: int
    block_id: int
    index: int
    hash: int
    parent_hash: int
    replaced_block_id: int = -1  # the block the map pointed to before (#219: later registration wins)


class BlockReleased(Event, tag=8):
    """deallocate dropped one reference; at ref_count 0 the block joins the free queue's tail."""
    kind: ClassVar[str] = "release"
    seq_id: int
    block_id: int
    ref_count: int


class FreedToHead(Event, tag=16):
    """The blocks one deallocate freed that a block policy put at the head of the free queue instead
    of its tail (vLLM's: the blocks without a hash, reused first), head first; they were released
    just before (BlockReleased). nano-vllm's own BlockManager never does this."""
    kind: ClassVar[str] = "freed_to_head"
    seq_id: int
    block_ids: tuple[int, ...]


class BlockAppended(Event, tag=9):
    """may_append gave a decoding request a new block (len % block_size == 1)."""
    kind: ClassVar[str] = "append_block"
    seq_id: int
    block_id: int


class Scheduled(Event, tag=10):
    kind: ClassVar[str] = "schedule"
    is_prefill: bool
    seq_ids: tuple[int, ...]
    num_tokens: tuple[int, ...]  # tokens computed this step, per request
    starts: tuple[int, ...]      # position of each request's first computed token (its cached tokens)


class Preempted(Event, tag=11):
    kind: ClassVar[str] = "preempt"
    seq_id: int


class TokenSampled(Event, tag=12):
    """kept=False: the sampled token of an unfinished prefill chunk, thrown away."""
    kind: ClassVar[str] = "token"
    seq_id: int
    token_id: int
    kept: bool = True
    text: str = ""


class Finished(Event, tag=13):
    kind: ClassVar[str] = "finish"
    seq_id: int
    reason: str  # "eos", "length", or "error" (its step raised; the batch was ended, see session.py)


class KVWritten(Event, tag=14):
    """The model stored K/V for these slots (all layers write the same slots)."""
    kind: ClassVar[str] = "kv_write"
    slots: tuple[int, ...]
    num_layers: int


class StepTimed(Event, tag=15):
    kind: ClassVar[str] = "step_time"
    seconds: float
    num_tokens: int


# --- SGLang's radix tree (policy "sglang", recording/instrumented_radix.py) -------------------------
# Pages are blocks; a node is named by its number in the tree (0: the root, then in creation order);
# times are the tree's own ticks counted from 1 in the order they were taken, so an eviction order
# reads the same in any replay.

class PageFreed(Event, tag=17):
    """A page went back to the free queue's tail (_deallocate_block): a page no request holds that
    the tree gave up (an evicted leaf's) or never held (a duplicate given up at insert)."""
    kind: ClassVar[str] = "page_freed"
    seq_id: int
    block_id: int


class PageReleased(Event, tag=18):
    """deallocate dropped one reference to a page. freed: it joined the free queue's tail; else it
    stays out of it, held by another request or cached by the tree (ref_count 0, evictable)."""
    kind: ClassVar[str] = "page_release"
    seq_id: int
    block_id: int
    ref_count: int
    freed: bool


class PageDeduplicated(Event, tag=19):
    """An insert found entry `index` of the request's block table already in the tree on another
    page: the table points at the tree's page now, and its own page is given up (PageFreed, before)."""
    kind: ClassVar[str] = "page_dedup"
    seq_id: int
    index: int
    own: int
    tree: int


class NodeInserted(Event, tag=20):
    """insert hung a new leaf below `parent`: the edge's tokens and their pages."""
    kind: ClassVar[str] = "node_insert"
    seq_id: int
    node: int
    parent: int
    token_ids: tuple[int, ...]
    pages: tuple[int, ...]
    accessed: int
    created: int
    hit_count: int


class NodeSplit(Event, tag=21):
    """A match or an insert ended inside `node`'s edge: a new node `new` takes its first `length`
    tokens (its place under the parent, its lock and hit count), and `node` hangs below it."""
    kind: ClassVar[str] = "node_split"
    seq_id: int
    node: int
    new: int
    length: int
    accessed: int
    created: int


class NodeTouched(Event, tag=22):
    """A match or an insert walked down to `node`: it and every node above it were accessed at `time`."""
    kind: ClassVar[str] = "node_touch"
    seq_id: int
    node: int
    time: int


class NodesHit(Event, tag=23):
    """An insert counted one more hit on these nodes (past what the request inserted before)."""
    kind: ClassVar[str] = "nodes_hit"
    seq_id: int
    nodes: tuple[int, ...]


class LockChanged(Event, tag=24):
    """inc_lock_ref (+1) or dec_lock_ref (-1) on `node`: the lock count of it and every node above it."""
    kind: ClassVar[str] = "lock"
    seq_id: int
    node: int
    delta: int


class LeafEvicted(Event, tag=25):
    """evict took this leaf out of the tree (its pages given back before, PageFreed)."""
    kind: ClassVar[str] = "leaf_evict"
    seq_id: int
    node: int


TREE_EVENTS = (NodeInserted, NodeSplit, NodeTouched, NodesHit, LockChanged, LeafEvicted)


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls for cls in (RequestAdded, CacheProbe, CanAllocate, BlockAllocated, BlockRevived,
                              BlockShared, HashRegistered, BlockReleased, FreedToHead, BlockAppended, Scheduled,
                              Preempted, TokenSampled, Finished, KVWritten, StepTimed, PageFreed, PageReleased,
                              PageDeduplicated, *TREE_EVENTS)
}


class ProbesOf(Event, tag=99):
    """In a packed step only: this request's CacheProbe events go here. A request waiting for room
    is probed at every step with the same result, so its probes are kept once per change
    (SeqHistory.probes) instead of once per step."""
    kind: ClassVar[str] = "probes_of"
    seq_id: int


EventUnion = Union[tuple(EVENT_TYPES.values()) + (ProbesOf,)]
pack_events = msgspec.msgpack.Encoder().encode
_unpack = msgspec.msgpack.Decoder(list[EventUnion])


def unpack_events(data: bytes) -> tuple[Event, ...]:
    return tuple(_unpack.decode(data))


FIELDS = {cls: msgspec.structs.fields(cls) for cls in EVENT_TYPES.values()}


def event_from_dict(data: dict) -> Event:
    """An event from its JSON form ({"kind": name, field: value, ...}); ValueError names what is wrong."""
    if not isinstance(data, dict):
        raise ValueError(f"an event must be an object, got {type(data).__name__}")
    kind = data.get("kind")
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"unknown event kind {kind!r}")
    values = [cls.__struct_config__.tag]
    for f in FIELDS[cls]:
        if f.name in data:
            values.append(data[f.name])
        elif f.default is not msgspec.NODEFAULT:
            values.append(f.default)
        else:
            raise ValueError(f"event {kind!r} lacks field {f.name!r}")
    try:
        return msgspec.convert(values, cls)  # strict: a bool is not an int, a float not a token id
    except msgspec.ValidationError as e:
        raise ValueError(f"event {kind!r}: {e}") from None
