"""Block-management policies by name: who gets a free block, and when a filled block can be hit.

    policies.names()                           # ("nano-vllm", "vllm", "sglang")
    policies.get("vllm")                       # Policy(name, block_manager class, follows)
    policies.block_manager("vllm", 1024, 16)   # a BlockManager deciding by vLLM's block rules

Every engine takes a policy by name through nano-vllm's one hook, Scheduler.make_block_manager
(PolicyScheduler, scheduler.py): the Simulator (`Simulator(policy=...)`), the traffic replay, the
policy lab and the recording, which builds its instrumented BlockManager over the policy's class, so
a run under any policy is recorded exactly and opens in the player and the dashboard.

Adding a policy: one file here with a BlockManager subclass (built as cls(num_blocks, block_size))
and its `POLICY = Policy(name, cls, follows)`, and one line in REGISTRY below.
"""
from blockviz.engine.block_manager import BlockManager
from blockviz.policies import nano_vllm, sglang, vllm
from blockviz.policies.free_queue import OrderedFreeQueue
from blockviz.policies.policy import Policy

REGISTRY: dict[str, Policy] = {p.name: p for p in (
    nano_vllm.POLICY,
    vllm.POLICY,
    sglang.POLICY,
)}

# From this many blocks on, a BlockManager's free queue is an OrderedFreeQueue (free_queue.py: the
# deque's order, remove in O(1)); below it nano-vllm's deque, which is faster for a small pool.
FAST_FREE_QUEUE_BLOCKS = 4096


def names() -> tuple[str, ...]:
    return tuple(REGISTRY)


def get(policy: str | Policy) -> Policy:
    """The registered policy of that name (a Policy is taken as it is: the lab's rule subsets)."""
    if isinstance(policy, Policy):
        return policy
    found = REGISTRY.get(policy) if isinstance(policy, str) else None
    if found is None:
        raise ValueError(f"policy must be one of {', '.join(map(repr, REGISTRY))}, got {policy!r:.80}")
    return found


def block_manager(policy: str | Policy, num_blocks: int, block_size: int, *,
                  fast_free_queue: bool | None = None) -> BlockManager:
    """A new BlockManager of the policy. fast_free_queue: an OrderedFreeQueue for its free queue
    (same decisions); None: from FAST_FREE_QUEUE_BLOCKS blocks on."""
    bm = get(policy).block_manager(num_blocks, block_size)
    return with_free_queue(bm, fast_free_queue)


def with_free_queue(bm: BlockManager, fast: bool | None = None) -> BlockManager:
    """`bm`, just built, with the free queue `fast` asks for (None: by its pool's size)."""
    if fast is None:
        fast = len(bm.blocks) >= FAST_FREE_QUEUE_BLOCKS
    if fast and not isinstance(bm.free_block_ids, OrderedFreeQueue):
        bm.free_block_ids = OrderedFreeQueue(bm.free_block_ids)
    return bm


__all__ = ["FAST_FREE_QUEUE_BLOCKS", "OrderedFreeQueue", "Policy", "REGISTRY", "block_manager", "get", "names",
           "with_free_queue"]
