"""The six block lifecycle states, derived from BlockManager state (never stored).

Under a radix tree (policy "sglang", policies/sglang.py) a page has no hash and no request holding
it need not be free: the tree keeps it cached, out of the free pages, until evicted. The same six
states say what it is, read from the pages the tree holds (`tree_pages`: a live
SglangBlockManager's, or a recorded step's, Snapshot.tree_pages):
  free         in the free pages (never cached, or evicted)
  cached-free  in the tree, held by no request: evictable, and a prefix match revives it (the radix
               analogue of a hash chain's cached-free block, but out of the free pages)
  filling      held by one request, not (yet) in the tree: a prefill's pages until its checkpoint,
               the part-filled last page, decode pages until the request finishes
  cached       held by one request and in the tree (its node locked by that request)
  shared       in several block tables (ref >= 2): a prefix the tree gave several requests
  stale-free   never: a page leaves the tree only by eviction, straight back to free
"""
from collections.abc import Set
from enum import Enum

import numpy as np


class BlockState(str, Enum):
    FREE = "free"                # in the free queue, no hash: nothing to reuse
    CACHED_FREE = "cached-free"  # in the free queue, hash still in the map: a hit revives it
    STALE_FREE = "stale-free"    # in the free queue, its hash now maps to another block or to none
    FILLING = "filling"          # owned, not yet full and computed
    CACHED = "cached"            # owned by one request, full, hashed
    SHARED = "shared"            # in several block tables


STATES = tuple(BlockState)  # a state code (state_codes) is its index here
CODE = {state: code for code, state in enumerate(STATES)}


def tree_pages(pool) -> Set[int] | None:
    """The pages a radix tree holds (policy "sglang"), or None for a hash-chain pool (nano-vllm, vLLM)."""
    return getattr(pool, "tree_pages", None)


def classify_block(pool, block_id: int) -> BlockState:
    """`pool` is a BlockManager or a Snapshot (same attribute names)."""
    block = pool.blocks[block_id]
    in_tree = tree_pages(pool)
    if in_tree is not None:   # a radix tree's pool: see the module's docstring
        if block_id not in pool.used_block_ids:
            return BlockState.FREE
        if block.ref_count >= 2:
            return BlockState.SHARED
        if block_id in in_tree:
            return BlockState.CACHED if block.ref_count else BlockState.CACHED_FREE
        return BlockState.FILLING
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


def state_codes(pool) -> np.ndarray:
    """Every block's state as its index in STATES (int8), classify_block's rule on whole arrays: a
    Snapshot's columns (recording/columns.py), or a BlockManager read block by block."""
    columns = getattr(pool, "columns", None)
    if columns is not None:
        free, hashed, mapped, ref = columns.free, columns.hashed, columns.mapped, columns.ref
    else:
        used, table = pool.used_block_ids, pool.hash_to_block_id
        free = np.array([b.block_id not in used for b in pool.blocks], bool)
        hashed = np.array([b.hash != -1 for b in pool.blocks], bool)
        mapped = np.array([b.hash != -1 and table.get(b.hash) == b.block_id for b in pool.blocks], bool)
        ref = np.array([b.ref_count for b in pool.blocks], np.int64)
    in_tree = tree_pages(pool)
    if in_tree is not None:   # a radix tree's pool: see the module's docstring
        return radix_codes(free, ref, in_tree)
    in_queue = np.where(hashed, np.where(mapped, CODE[BlockState.CACHED_FREE], CODE[BlockState.STALE_FREE]),
                        CODE[BlockState.FREE])
    held = np.where(ref >= 2, CODE[BlockState.SHARED], np.where(hashed, CODE[BlockState.CACHED], CODE[BlockState.FILLING]))
    return np.where(free, in_queue, held).astype(np.int8)


def radix_codes(free: np.ndarray, ref: np.ndarray, in_tree: Set[int]) -> np.ndarray:
    cached = np.zeros(len(free), bool)
    cached[np.fromiter(in_tree, np.int64, len(in_tree))] = True
    held = np.where(ref >= 2, CODE[BlockState.SHARED],
                    np.where(cached, np.where(ref > 0, CODE[BlockState.CACHED], CODE[BlockState.CACHED_FREE]),
                             CODE[BlockState.FILLING]))
    return np.where(free, CODE[BlockState.FREE], held).astype(np.int8)


def classify(pool) -> list[BlockState]:
    return [STATES[code] for code in state_codes(pool).tolist()]


def count_states(pool) -> dict[BlockState, int]:
    counts = np.bincount(state_codes(pool), minlength=len(STATES))
    return {state: int(n) for state, n in zip(STATES, counts)}
