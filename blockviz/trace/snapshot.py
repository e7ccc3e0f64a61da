"""Immutable pictures of the engine after a step: what every view renders from."""
from dataclasses import dataclass, field

from blockviz.engine.scheduler import Scheduler
from blockviz.engine.sequence import Sequence


@dataclass(frozen=True)
class BlockView:
    block_id: int
    ref_count: int
    hash: int
    token_ids: tuple[int, ...]


@dataclass(frozen=True)
class SeqView:
    seq_id: int
    label: str
    token_ids: tuple[int, ...]
    num_prompt_tokens: int
    num_cached_tokens: int
    block_table: tuple[int, ...]
    status: str  # "waiting", "running" or "finished"
    max_tokens: int

    @property
    def num_tokens(self) -> int:
        return len(self.token_ids)

    @property
    def completion_token_ids(self) -> tuple[int, ...]:
        return self.token_ids[self.num_prompt_tokens:]


@dataclass(frozen=True)
class Snapshot:
    """Same attribute names as BlockManager, so pure functions accept either."""
    step: int
    block_size: int
    blocks: tuple[BlockView, ...]
    free_block_ids: tuple[int, ...]
    used_block_ids: frozenset[int]
    hash_to_block_id: dict[int, int]
    seqs: dict[int, SeqView]          # every request ever added, in arrival order
    waiting: tuple[int, ...]
    running: tuple[int, ...]
    is_prefill: bool | None = None    # None before the first step
    scheduled: dict[int, tuple[int, int]] = field(default_factory=dict)  # seq_id -> (first position, count)

    @property
    def num_blocks(self) -> int:
        return len(self.blocks)


def block_view(block) -> BlockView:
    return BlockView(block.block_id, block.ref_count, block.hash, tuple(block.token_ids))


def seq_view(seq: Sequence, label: str) -> SeqView:
    return SeqView(seq.seq_id, label, tuple(seq.token_ids), seq.num_prompt_tokens, seq.num_cached_tokens,
                   tuple(seq.block_table), seq.status.name.lower(), seq.max_tokens)


def take_snapshot(scheduler: Scheduler, seqs: dict[int, Sequence], labels: dict[int, str], step: int,
                  previous: Snapshot | None = None, touched_blocks: set[int] | None = None,
                  is_prefill: bool | None = None,
                  scheduled: dict[int, tuple[int, int]] | None = None) -> Snapshot:
    """Copy the engine's state. With `previous` and `touched_blocks`, only touched blocks and
    unfinished requests are copied again; the rest is shared with `previous` (it is immutable)."""
    bm = scheduler.block_manager
    if previous is None or touched_blocks is None:
        blocks = tuple(block_view(b) for b in bm.blocks)
    else:
        updated = list(previous.blocks)
        for block_id in touched_blocks:
            updated[block_id] = block_view(bm.blocks[block_id])
        blocks = tuple(updated)
    seq_views = {}
    for seq_id, seq in seqs.items():
        old = previous.seqs.get(seq_id) if previous else None
        if old is not None and old.status == "finished":
            seq_views[seq_id] = old
        else:
            seq_views[seq_id] = seq_view(seq, labels[seq_id])
    return Snapshot(step, bm.block_size, blocks, tuple(bm.free_block_ids), frozenset(bm.used_block_ids),
                    dict(bm.hash_to_block_id), seq_views,
                    tuple(s.seq_id for s in scheduler.waiting), tuple(s.seq_id for s in scheduler.running),
                    is_prefill, dict(scheduled or {}))
