"""nano-vllm's BlockManager with some of vLLM's block rules put in (rules.BLOCK_RULES): the policy
lab runs a stream with each set of rules to find the rule behind a difference (nano.py), and a
serving trace replays with all of them as "vLLM's policy" (blockviz.traffic)."""
from blockviz.engine.block_manager import BlockManager
from blockviz.engine.sequence import Sequence
from blockviz.vllm.lab.rules import BLOCK_RULES, FREE_UNHASHED_FIRST, REGISTER_WHEN_SCHEDULED


class RuleBlockManager(BlockManager):
    """Without rules it decides exactly as nano-vllm's BlockManager."""

    def __init__(self, num_blocks: int, block_size: int, rules: frozenset[str] = frozenset()):
        super().__init__(num_blocks, block_size)
        unknown = set(rules) - set(BLOCK_RULES)
        if unknown:
            raise ValueError(f"no BlockManager variant for rules {sorted(unknown)}; choose from {BLOCK_RULES}")
        self.rules = frozenset(rules)
        self.scheduled: Sequence | None = None  # the request admitted last, its tokens not registered yet

    def can_allocate(self, seq: Sequence) -> int:
        if self.scheduled is not None:
            # vLLM's allocate_slots: the blocks the scheduled tokens fill are registered at once, so
            # the next request of the same step can hit them (postprocess registers them again: a no-op)
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
            # vLLM's BlockPool.free_blocks: blocks without a hash to the head, in the order freed
            self.free_block_ids.extendleft(reversed([b for b in freed if self.blocks[b].hash == -1]))
            self.free_block_ids.extend(b for b in freed if self.blocks[b].hash != -1)
