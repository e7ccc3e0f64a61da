"""The reference of lesson b0's stage: nano-vllm's BlockManager with its prefix cache left out.

Paging and prefix caching are two ideas; nano-vllm's BlockManager has both. Its cache is fed by one
method only: `hash_blocks` is where a block gets its hash and its tokens and enters
`hash_to_block_id`. Left out (here, a subclass: blockviz/engine stays nano-vllm's text), nothing is
ever registered, so every other method runs its own, unchanged lines with an empty cache:
`can_allocate`'s walk finds nothing and returns 0 (or -1), `allocate` takes a fresh block for every
block of the prompt, `_allocate_block` never has an old hash to drop, `reset()` makes every block
ref count 1, no hash, no tokens, and `deallocate` returns the blocks to the free queue as nano-vllm
does (the last block first, each appended at the tail). That is a paged allocator without a cache,
run by nano-vllm's own code.

What it changes against the whole engine: a prompt that shares a prefix with an earlier one gets
fresh blocks instead of hits, and a preempted request, readmitted, finds none of its blocks again
(the whole engine may hit on them: its blocks keep their hashes in the free queue).
"""
from blockviz.engine.block_manager import BlockManager
from blockviz.engine.sequence import Sequence


class CachelessBlockManager(BlockManager):

    def hash_blocks(self, seq: Sequence):
        pass  # nothing registered: the cache stays empty, so no block can ever be found again
