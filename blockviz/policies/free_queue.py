"""A free queue whose remove is O(1), for pools of 100 000 blocks and more.

nano-vllm keeps free block ids in a deque, and `allocate` takes a prefix hit on a free block out
of it with `deque.remove`, a scan from the head: at a 50M-token pool (97 656 blocks of 512) that
scan was half of a trace replay's time. The engine's files stay nano-vllm's; a policy's
BlockManager is built with this queue in place of the deque (policies.block_manager, from
FAST_FREE_QUEUE_BLOCKS blocks on), which keeps the same order (an OrderedDict of block ids:
popleft, append and remove in O(1)), so every decision is the same.
"""
from collections import OrderedDict
from typing import Iterable


class OrderedFreeQueue(OrderedDict):
    """The deque operations the BlockManagers use, in the same order, with remove in O(1).

    An OrderedDict of block ids (each mapped to None) rather than a wrapper round one: `len`, `in`
    and iteration, which the scheduler asks every request every step (can_append), stay C calls.
    Indexing reads the head [0] and the tail [-1] only; a block id is never a key to index by."""

    def __init__(self, block_ids: Iterable[int] = ()):
        super().__init__()
        self.extend(block_ids)   # a third of the time OrderedDict(mapping) takes for a pool of 100 000

    def __getitem__(self, index: int) -> int:
        if index == 0:
            return next(iter(self))
        if index == -1:
            return next(reversed(self))
        raise IndexError("the free queue reads its head [0] and its tail [-1] only")

    def popleft(self) -> int:
        return self.popitem(last=False)[0]

    def pop(self) -> int:
        return self.popitem(last=True)[0]

    def append(self, block_id: int):
        self[block_id] = None

    def appendleft(self, block_id: int):
        self[block_id] = None
        self.move_to_end(block_id, last=False)

    def extend(self, block_ids: Iterable[int]):
        for b in block_ids:
            self[b] = None

    def extendleft(self, block_ids: Iterable[int]):
        """As deque.extendleft: each id in turn to the head (so they end up reversed)."""
        for b in block_ids:
            self[b] = None
            self.move_to_end(b, last=False)

    def remove(self, block_id: int):
        del self[block_id]

    def copy(self) -> "OrderedFreeQueue":
        return OrderedFreeQueue(self)   # OrderedDict.copy would index by block id
