"""The picture of one step: what every view renders from, read from the recording on demand.

A Snapshot uses the BlockManager's attribute names (blocks, free_block_ids, used_block_ids,
hash_to_block_id), so pure functions such as states.classify accept a live BlockManager or a
recorded step. Making one copies nothing: each attribute reads the History at its step the first
time it is asked for (a block, a request or a hash is a binary search; the whole map, when read
whole, is built once per Snapshot and kept with it; the whole pool as arrays, `columns`, and the free queue
from them, come from a step next to it with the blocks written in between read again: recording/columns.py).
"""
from array import array
from collections.abc import Iterator, Mapping, Sequence as SequenceABC, Set
from functools import cached_property

import numpy as np

from blockviz.recording.columns import PoolColumns, columns_at
from blockviz.recording.events import Scheduled
from blockviz.recording.history import EMPTY_TABLE, BlockView, History, SeqHistory
from blockviz.recording.radix_tree import RecordedTree

__all__ = ["BlockView", "FreeQueue", "SeqView", "Snapshot"]


class FreeQueue(array):
    """snapshot.free_block_ids: block ids, head first, compared like the tuple it stands for.
    An array, not a tuple: a tuple of a pool's worth of ints is a container the garbage collector
    walks whole at its next collection (at 65,536 blocks and the few dozen pictures a view keeps,
    tens of milliseconds in the middle of a seek); an array holds machine ints it never visits."""
    __slots__ = ()  # no __dict__ either

    def __new__(cls, ids=()):
        return super().__new__(cls, "q", ids)

    def __eq__(self, other):
        if isinstance(other, (tuple, list, array)):
            return len(self) == len(other) and tuple(self) == tuple(other)
        return NotImplemented

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None

    def __repr__(self) -> str:
        return f"FreeQueue({list(self)})"


class SeqView:
    """One request at one step. Each field is read from the request's History when asked (a binary
    search), and token_ids from the request's one list of tokens."""
    __slots__ = ("_seq", "_step")

    def __init__(self, seq: SeqHistory, step: int):
        self._seq, self._step = seq, step

    seq_id = property(lambda self: self._seq.seq_id)
    label = property(lambda self: self._seq.label)
    num_prompt_tokens = property(lambda self: self._seq.num_prompt_tokens)
    max_tokens = property(lambda self: self._seq.max_tokens)

    @property
    def num_tokens(self) -> int:
        return self._seq.num_tokens(self._step)

    @property
    def num_cached_tokens(self) -> int:
        num_tokens = self.num_tokens
        return num_tokens - self._seq.gap.at(self._step, num_tokens)

    @property
    def block_table(self) -> tuple[int, ...]:
        epoch, length = self._seq.table.at(self._step, EMPTY_TABLE)
        return tuple(epoch[:length])

    @property
    def status(self) -> str:
        return self._seq.status.at(self._step, "waiting")

    @property
    def token_ids(self) -> tuple[int, ...]:
        return tuple(self._seq.token_ids[:self.num_tokens])

    @property
    def completion_token_ids(self) -> tuple[int, ...]:
        return tuple(self._seq.token_ids[self.num_prompt_tokens:self.num_tokens])

    def plain(self) -> tuple:
        return (self.seq_id, self.label, self.token_ids, self.num_prompt_tokens, self.num_cached_tokens,
                self.block_table, self.status, self.max_tokens)

    def __eq__(self, other) -> bool:
        return isinstance(other, SeqView) and self.plain() == other.plain()

    def __repr__(self) -> str:
        return (f"SeqView({self.label}: {self.status}, {self.num_tokens} tokens, {self.num_cached_tokens} cached, "
                f"block_table={list(self.block_table)})")


class BlockList(SequenceABC):
    """snapshot.blocks: block i at this step, looked up when read."""

    def __init__(self, history: History, step: int):
        self.history, self.step = history, step

    def __len__(self) -> int:
        return self.history.num_blocks

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = self.history.num_blocks
        if not -n <= i < n:
            raise IndexError(f"block {i} is not in the pool (0..{n - 1})")
        return self.history.block(i % n, self.step)

    def __iter__(self) -> Iterator[BlockView]:
        block, step = self.history.block, self.step
        return (block(i, step) for i in range(self.history.num_blocks))


class UsedBlocks(Set):
    """snapshot.used_block_ids: the blocks out of the free queue at this step."""

    def __init__(self, history: History, step: int):
        self.history, self.step = history, step

    def __contains__(self, block_id) -> bool:
        return (isinstance(block_id, int) and 0 <= block_id < self.history.num_blocks
                and self.history.ticket(block_id, self.step) == -1)

    @cached_property
    def ids(self) -> frozenset[int]:
        return frozenset(np.flatnonzero(columns_at(self.history, self.step).ticket == -1).tolist())

    def __iter__(self) -> Iterator[int]:
        return iter(sorted(self.ids))

    @classmethod
    def _from_iterable(cls, it) -> frozenset:  # set operations (used - other, ...) give plain sets
        return frozenset(it)

    def __len__(self) -> int:
        return len(self.ids)


class HashMap(Mapping):
    """snapshot.hash_to_block_id: one hash is a binary search; the whole map, built when first
    iterated, a pass over every hash the recording holds."""

    def __init__(self, history: History, step: int):
        self.history, self.step = history, step

    def __getitem__(self, h) -> int:
        versions = self.history.hashes.get(h)
        block_id = -1 if versions is None else versions.at(self.step, -1)
        if block_id == -1:
            raise KeyError(h)
        return block_id

    @cached_property
    def entries(self) -> dict[int, int]:
        step, found = self.step, {}
        for h, versions in self.history.hashes.items():
            block_id = versions.at(step, -1)
            if block_id != -1:
                found[h] = block_id
        return found

    def __iter__(self) -> Iterator[int]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def __eq__(self, other) -> bool:
        return dict(self.entries) == other if isinstance(other, Mapping) else NotImplemented

    def __repr__(self) -> str:
        return f"HashMap({self.entries!r})"


class SeqMap(Mapping):
    """snapshot.seqs: every request that had arrived by this step, in arrival order."""

    def __init__(self, history: History, step: int):
        self.history, self.step = history, step
        self.views: dict[int, SeqView] = {}

    def __getitem__(self, seq_id: int) -> SeqView:
        view = self.views.get(seq_id)
        if view is None:
            seq = self.history.seqs.get(seq_id)
            if seq is None or seq.arrived > self.step:
                raise KeyError(seq_id)
            view = self.views[seq_id] = SeqView(seq, self.step)
        return view

    @cached_property
    def ids(self) -> tuple[int, ...]:
        return tuple(i for i, s in self.history.seqs.items() if s.arrived <= self.step)

    def __iter__(self) -> Iterator[int]:
        return iter(self.ids)

    def __reversed__(self) -> Iterator[int]:
        return reversed(self.ids)

    def __len__(self) -> int:
        return len(self.ids)

    def __contains__(self, seq_id) -> bool:
        seq = self.history.seqs.get(seq_id)
        return seq is not None and seq.arrived <= self.step


class Snapshot:
    """The engine after step `step` (step 0: before the first step)."""

    def __init__(self, history: History, step: int, events: tuple | None = None):
        """`events`: the step's events when the caller has them unpacked already (a Frame)."""
        self.history = history
        self.step = history.check_step(step)
        self._events = events
        self.block_size = history.block_size
        self.blocks = BlockList(history, step)
        self.used_block_ids = UsedBlocks(history, step)
        self.seqs = SeqMap(history, step)

    @property
    def num_blocks(self) -> int:
        return self.history.num_blocks

    @cached_property
    def columns(self) -> PoolColumns:
        """Every block's ref count, hash, ticket and map entry as arrays (recording/columns.py)."""
        return columns_at(self.history, self.step)

    @cached_property
    def free_block_ids(self) -> FreeQueue:
        """The free blocks by ticket: those still holding the ticket of the first order first, in
        that order, then every block that rejoined the queue since (later tickets are larger)."""
        return FreeQueue(self.columns.queue().astype(np.int64).tobytes())

    @cached_property
    def hash_to_block_id(self) -> "HashMap":
        return HashMap(self.history, self.step)

    @cached_property
    def tree(self) -> RecordedTree | None:
        """The radix tree at this step, under a policy that decides with one ("sglang"; None under
        the others): SglangBlockManager.tree's picture, built from the nodes alive at this step."""
        config = self.history.tree_config
        if config is None:
            return None
        return RecordedTree.from_views(self.history.tree_nodes_at(self.step), *config)

    @cached_property
    def tree_pages(self) -> frozenset[int] | None:
        """The pages the radix tree holds at this step (SglangBlockManager.tree_pages; None under a
        hash-chain policy): what tells a tree-cached page from a request's own (states.py)."""
        if self.history.tree_config is None:
            return None
        if "tree" in self.__dict__:   # built already
            return frozenset(p for n in self.tree.nodes.values() for p in n.pages)
        return frozenset(p for v in self.history.tree_nodes_at(self.step) for p in v.pages)

    @cached_property
    def waiting(self) -> tuple[int, ...]:
        return self.history.queue("waiting", self.step)

    @cached_property
    def running(self) -> tuple[int, ...]:
        return self.history.queue("running", self.step)

    @cached_property
    def _scheduled_event(self) -> Scheduled | None:
        if self.step == 0:
            return None
        events = self.history.events(self.step) if self._events is None else self._events
        return next((e for e in events if type(e) is Scheduled), None)

    @property
    def is_prefill(self) -> bool | None:
        event = self._scheduled_event
        return None if event is None else event.is_prefill

    @cached_property
    def scheduled(self) -> dict[int, tuple[int, int]]:
        """seq_id -> (first position computed this step, number of tokens computed)."""
        event = self._scheduled_event
        if event is None:
            return {}
        return {seq_id: (start, n) for seq_id, start, n in zip(event.seq_ids, event.starts, event.num_tokens)}

    def plain(self) -> dict:
        """Everything the picture says, as plain values (for comparisons and saving)."""
        tree = {} if self.tree is None else {"tree": self.tree.plain()}
        return tree | {"step": self.step, "block_size": self.block_size,
                "blocks": [(b.ref_count, b.hash, tuple(b.token_ids)) for b in self.blocks],
                "free": self.free_block_ids, "used": sorted(self.used_block_ids),
                "map": dict(self.hash_to_block_id), "seqs": [q.plain() for q in self.seqs.values()],
                "waiting": self.waiting, "running": self.running, "is_prefill": self.is_prefill,
                "scheduled": self.scheduled}

    def __eq__(self, other) -> bool:
        return isinstance(other, Snapshot) and self.plain() == other.plain()

    def __repr__(self) -> str:
        return f"Snapshot(step {self.step}: {len(self.used_block_ids)} of {self.num_blocks} blocks in use)"
