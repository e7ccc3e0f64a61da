"""What a check compares after every step, read from the live objects as plain values."""
from dataclasses import dataclass

from blockviz.session import Session


@dataclass(frozen=True)
class BlockValues:
    ref_count: int
    hash: int
    token_ids: tuple[int, ...]


@dataclass(frozen=True)
class RequestState:
    status: str
    block_table: tuple[int, ...]
    num_cached_tokens: int
    num_tokens: int


@dataclass(frozen=True)
class State:
    blocks: tuple[BlockValues, ...]
    free_block_ids: tuple[int, ...]    # in order: the next allocation takes the first
    used_block_ids: frozenset[int]
    hash_to_block_id: dict[int, int]
    requests: dict[str, RequestState]  # by label
    waiting: tuple[str, ...]
    running: tuple[str, ...]


def state_of(sim: Session) -> State:
    """The state of a Simulator's scheduler, its block manager and every request it was given."""
    scheduler, labels = sim.scheduler, sim.labels
    bm = scheduler.block_manager
    requests = {labels[seq_id]: RequestState(seq.status.name.lower(), tuple(seq.block_table), seq.num_cached_tokens,
                                             seq.num_tokens) for seq_id, seq in sim.seqs.items()}
    return State(tuple(BlockValues(b.ref_count, b.hash, tuple(b.token_ids)) for b in bm.blocks),
                 tuple(bm.free_block_ids), frozenset(bm.used_block_ids), dict(bm.hash_to_block_id),
                 dict(sorted(requests.items())), tuple(labels[s.seq_id] for s in scheduler.waiting),
                 tuple(labels[s.seq_id] for s in scheduler.running))
