"""Lesson b0's answer: a paged allocator without a prefix cache, the five methods nano-vllm's
BlockManager has for it with every line of the cache taken out (no hash, no map, no hit, no revival).
The lesson reveals it on request; tests/diy/test_paging.py proves it the same as nano-vllm's engine
with its cache left out (cacheless.py) at every step of random workloads."""
from blockviz.engine.block_manager import BlockManager
from blockviz.engine.sequence import Sequence


class PagedBlockManager(BlockManager):

    def can_allocate(self, seq: Sequence) -> int:
        # no cache: no block is ever found again, so a request needs a free block for each of its blocks
        return 0 if len(self.free_block_ids) >= seq.num_blocks else -1

    def _allocate_block(self) -> int:
        block_id = self.free_block_ids.popleft()  # the head: the block free the longest
        self.blocks[block_id].reset()             # one owner, nothing in it yet
        self.used_block_ids.add(block_id)
        return block_id

    def allocate(self, seq: Sequence, num_cached_blocks: int):
        assert not seq.block_table and num_cached_blocks == 0
        for _ in range(seq.num_blocks):  # ceil(len(seq) / block_size): the last block may be part full
            seq.block_table.append(self._allocate_block())
        seq.num_cached_tokens = 0

    def _deallocate_block(self, block_id: int):
        self.used_block_ids.remove(block_id)
        self.free_block_ids.append(block_id)  # the tail: taken again last

    def deallocate(self, seq: Sequence):
        for block_id in reversed(seq.block_table):  # the last block first, as nano-vllm returns them
            block = self.blocks[block_id]
            block.ref_count -= 1
            if block.ref_count == 0:
                self._deallocate_block(block_id)
        seq.num_cached_tokens = 0  # a preempted request is computed again from its first token
        seq.block_table.clear()
