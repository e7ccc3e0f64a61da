"""nano-vllm's Scheduler with a policy's BlockManager, built in the engine's one hook
(Scheduler.make_block_manager): nothing swaps a scheduler's block manager, or its free queue, after
it is built."""
from blockviz.config import Config
from blockviz.engine.block_manager import BlockManager
from blockviz.engine.scheduler import Scheduler
from blockviz.policies import Policy, block_manager, get


class PolicyScheduler(Scheduler):

    def __init__(self, config: Config, policy: str | Policy = "nano-vllm", *, fast_free_queue: bool | None = None):
        self.policy = get(policy)
        self.fast_free_queue = fast_free_queue
        super().__init__(config)

    def make_block_manager(self, num_blocks: int, block_size: int) -> BlockManager:
        return block_manager(self.policy, num_blocks, block_size, fast_free_queue=self.fast_free_queue)
