"""The whole pool at one step as numpy arrays, for views that read every block (the pool's picture,
its state counts, the free queue's order).

Reading a pool of 65,536 blocks block by block from the History is a binary search per value,
about 0.15 s a step in Python. Steps next to each other differ in a few blocks, so the columns of
a step are those of a step kept near it with only the blocks written in between read again
(History.changed lists them per step); a step far from every kept one is read whole.
"""
from typing import NamedTuple

import numpy as np

from blockviz.recording.history import History

KEPT = 8           # steps whose columns a History keeps (a view steps back and forth around one)
KEPT_BYTES = 64 * 2**20  # and at most this much of them: 27 bytes a block, 4M blocks make 108 MB a step
NEAR = 512         # a kept step at most this far away is a base for another
MOSTLY = 4         # more changed blocks than num_blocks // MOSTLY in between: read the pool whole


class PoolColumns(NamedTuple):
    """Per block, at one step (read-only arrays)."""
    ref: np.ndarray      # int64 ref_count
    hashed: np.ndarray   # bool: has a hash
    hash: np.ndarray     # uint64: the hash where hashed, else 0 (hashes are 64-bit unsigned: -1 does not fit)
    tokens: np.ndarray   # bool: holds token ids (set when hash_blocks registers a full block)
    ticket: np.ndarray   # int64 free-queue ticket, -1: in use; the queue is the free blocks by ticket
    mapped: np.ndarray   # bool: hashed and hash_to_block_id[hash] is this block

    @property
    def free(self) -> np.ndarray:
        return self.ticket >= 0

    def queue(self) -> np.ndarray:
        """The free queue's block ids, head first (snapshot.free_block_ids)."""
        free = np.flatnonzero(self.ticket >= 0)
        return free[np.argsort(self.ticket[free], kind="stable")]


def columns_at(history: History, step: int) -> PoolColumns:
    """The pool at `step` (a step the history holds)."""
    kept = history.columns_kept
    columns = kept.pop(step, None)
    if columns is None:
        columns = derived(history, step)
    kept[step] = columns  # the newest last
    most = max(2, min(KEPT, KEPT_BYTES // max(1, sum(a.nbytes for a in columns))))
    while len(kept) > most:
        del kept[next(iter(kept))]
    return columns


def derived(history: History, step: int) -> PoolColumns:
    bases = [s for s in history.columns_kept if abs(s - step) <= NEAR and s >= history.first_step]
    if bases:
        base = min(bases, key=lambda s: abs(s - step))
        lo, hi = min(base, step), max(base, step)
        ids = [history.changed[s] for s in range(lo + 1, hi + 1) if s in history.changed]
        blocks = np.unique(np.concatenate(ids)) if ids else np.zeros(0, np.int64)
        if len(blocks) <= history.num_blocks // MOSTLY:
            old = history.columns_kept[base]
            arrays = [a.copy() for a in old]
            read(history, step, blocks.tolist(), *arrays)
            return frozen(arrays)
    return whole(history, step)


def whole(history: History, step: int) -> PoolColumns:
    n = history.num_blocks
    ref, hashed, tokens, mapped = np.zeros(n, np.int64), np.zeros(n, bool), np.zeros(n, bool), np.zeros(n, bool)
    hash_ = np.zeros(n, np.uint64)
    ticket = np.asarray(history.initial_ticket, dtype=np.int64).copy()
    hashes = history.hashes
    for block_id, versions in history.blocks.items():
        view = versions.at(step)
        if view is not None:
            ref[block_id], tokens[block_id] = view.ref_count, bool(view.token_ids)
            if view.hash != -1:
                hashed[block_id], hash_[block_id] = True, view.hash
                entry = hashes.get(view.hash)
                mapped[block_id] = entry is not None and entry.at(step, -1) == block_id
    for block_id, versions in history.tickets.items():
        t = versions.at(step)
        if t is not None:
            ticket[block_id] = t
    return frozen([ref, hashed, hash_, tokens, ticket, mapped])


def read(history: History, step: int, blocks: list[int], ref, hashed, hash_, tokens, ticket, mapped):
    """Read `blocks` again at `step` into the arrays."""
    hashes = history.hashes
    for block_id in blocks:
        view = history.block(block_id, step)
        ref[block_id], hashed[block_id], tokens[block_id] = view.ref_count, view.hash != -1, bool(view.token_ids)
        hash_[block_id] = max(view.hash, 0)
        ticket[block_id] = history.ticket(block_id, step)
        entry = hashes.get(view.hash) if view.hash != -1 else None
        mapped[block_id] = entry is not None and entry.at(step, -1) == block_id


def frozen(arrays: list[np.ndarray]) -> PoolColumns:
    for a in arrays:
        a.flags.writeable = False  # shared by every picture of the step
    return PoolColumns(*arrays)
