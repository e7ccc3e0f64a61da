"""vLLM's block rules, put into nano-vllm's BlockManager.

Where vLLM 0.32's prefix cache (vllm-project/vllm, vllm/v1/core/) decides differently from
nano-vllm's BlockManager in a way a BlockManager can do, each difference is a rule:

- FREE_UNHASHED_FIRST. vllm/v1/core/single_type_kv_cache_manager.py: SingleTypeKVCacheManager.free
  frees a request's blocks in reverse, and vllm/v1/core/block_pool.py: BlockPool.free_blocks puts
  the blocks without a block_hash at the head of the free queue (FreeKVCacheBlockQueue.prepend_n:
  reused first), in the order freed, and the hashed ones at its tail (append_n: LRU). nano-vllm
  appends every freed block to the tail.
- REGISTER_WHEN_SCHEDULED. vllm/v1/core/kv_cache_manager.py: KVCacheManager.allocate_slots caches
  the blocks a request's scheduled tokens fill when it schedules them (coordinator.cache_blocks),
  so a request scheduled later in the same step already hits them; nano-vllm registers them in
  Scheduler.postprocess, after the step.

The "vllm" policy has both; the policy lab (blockviz/vllm/lab/) runs each subset of them
(`with_rules`) to find the rule behind a difference it sees. The lab's rules.py keeps the
explanations of these and of the differences a BlockManager cannot make.
"""
from functools import cache

from blockviz.engine.block_manager import BlockManager
from blockviz.engine.sequence import Sequence
from blockviz.policies.policy import Policy

FREE_UNHASHED_FIRST = "free_unhashed_first"
REGISTER_WHEN_SCHEDULED = "register_when_scheduled"
BLOCK_RULES = (FREE_UNHASHED_FIRST, REGISTER_WHEN_SCHEDULED)


class VllmBlockManager(BlockManager):
    """nano-vllm's BlockManager with the rules in `rules` (a class attribute, so the class is built
    as the engine builds its own; `with_rules` gives a subset). Without rules it decides exactly as
    nano-vllm's."""
    rules: frozenset[str] = frozenset(BLOCK_RULES)

    def __init__(self, num_blocks: int, block_size: int):
        super().__init__(num_blocks, block_size)
        self.scheduled: Sequence | None = None   # the request admitted last, its scheduled tokens not registered yet

    def can_allocate(self, seq: Sequence) -> int:
        if self.scheduled is not None:
            # allocate_slots: the blocks the last admission's scheduled tokens fill are registered now, so
            # this request can hit them (each layer writes the step's KV before its attention reads it);
            # postprocess registers them again, in the step's order, as nano-vllm does
            self.hash_blocks(self.scheduled)
            self.scheduled = None
        return super().can_allocate(seq)

    def allocate(self, seq: Sequence, num_cached_blocks: int):
        super().allocate(seq, num_cached_blocks)
        if REGISTER_WHEN_SCHEDULED in self.rules:
            self.scheduled = seq   # the scheduler sets num_scheduled_tokens next

    def hash_blocks(self, seq: Sequence):
        if seq is self.scheduled:
            self.scheduled = None
        super().hash_blocks(seq)

    def deallocate(self, seq: Sequence):
        before = len(self.free_block_ids)
        super().deallocate(seq)   # nano-vllm: every freed block to the tail, the table's last block first
        if FREE_UNHASHED_FIRST in self.rules:
            freed = [self.free_block_ids.pop() for _ in range(len(self.free_block_ids) - before)][::-1]
            # BlockPool.free_blocks: blocks without a hash to the head, in the order freed
            self.free_block_ids.extendleft(reversed([b for b in freed if self.blocks[b].hash == -1]))
            self.free_block_ids.extend(b for b in freed if self.blocks[b].hash != -1)


@cache
def with_rules(rules: frozenset[str]) -> type[VllmBlockManager]:
    """VllmBlockManager with only these of BLOCK_RULES (one class per set, so instances compare)."""
    unknown = set(rules) - set(BLOCK_RULES)
    if unknown:
        raise ValueError(f"no BlockManager variant for rules {sorted(unknown)}; choose from {BLOCK_RULES}")
    if rules == VllmBlockManager.rules:
        return VllmBlockManager
    name = "VllmBlockManager_" + "_".join(sorted(rules, key=BLOCK_RULES.index)) if rules else "VllmBlockManager_none"
    return type(name, (VllmBlockManager,), {"rules": frozenset(rules), "__module__": __name__})


POLICY = Policy("vllm", VllmBlockManager,
                "vLLM 0.32: vllm/v1/core/block_pool.py (BlockPool.free_blocks), "
                "vllm/v1/core/kv_cache_manager.py (KVCacheManager.allocate_slots)")
