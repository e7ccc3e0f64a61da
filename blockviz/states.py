"""The six block lifecycle states, derived from BlockManager state (never stored)."""
from enum import Enum


class BlockState(str, Enum):
    FREE = "free"                # in the free queue, no hash: nothing to reuse
    CACHED_FREE = "cached-free"  # in the free queue, hash still in the map: a hit revives it
    STALE_FREE = "stale-free"    # in the free queue, its hash now maps to another block or to none
    FILLING = "filling"          # owned, not yet full and computed
    CACHED = "cached"            # owned by one request, full, hashed
    SHARED = "shared"            # in several block tables


def classify_block(pool, block_id: int) -> BlockState:
    """`pool` is a BlockManager or a Snapshot (same attribute names)."""
    block = pool.blocks[block_id]
    if block_id not in pool.used_block_ids:
        if block.hash == -1:
            return BlockState.FREE
        if pool.hash_to_block_id.get(block.hash) == block_id:
            return BlockState.CACHED_FREE
        return BlockState.STALE_FREE
    if block.ref_count >= 2:
        return BlockState.SHARED
    if block.hash == -1:
        return BlockState.FILLING
    return BlockState.CACHED


def classify(pool) -> list[BlockState]:
    return [classify_block(pool, i) for i in range(len(pool.blocks))]


def count_states(pool) -> dict[BlockState, int]:
    counts = {state: 0 for state in BlockState}
    for state in classify(pool):
        counts[state] += 1
    return counts
