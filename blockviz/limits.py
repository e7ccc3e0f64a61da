"""What a request needs from the pool, and the check that refuses one that could never run.

nano-vllm's Scheduler would assert or stall forever on such a request; blockviz's sessions call
check_can_ever_run before Scheduler.add, so the scheduler itself stays nano-vllm's."""
from blockviz.engine.sequence import Sequence


def blocks_needed(num_tokens: int, block_size: int) -> int:
    return (num_tokens + block_size - 1) // block_size


def longest_context(seq: Sequence) -> int:
    # The last sampled token is never fed back, so the KV never holds more than this.
    return seq.num_prompt_tokens + seq.max_tokens - 1


def check_can_ever_run(seq: Sequence, num_blocks: int, block_size: int):
    """Raise ValueError for a request that can never fit: nano-vllm would stall or assert on it."""
    if seq.block_size != block_size:
        raise ValueError(f"the sequence uses block_size {seq.block_size} but the engine uses {block_size}; "
                         f"build it with Sequence(..., block_size={block_size})")
    prompt_blocks = blocks_needed(seq.num_prompt_tokens, block_size)
    if prompt_blocks > num_blocks:
        raise ValueError(f"the prompt needs {prompt_blocks} blocks of {block_size} tokens "
                         f"but the pool has only {num_blocks}: it could never be admitted")
    # With ignore_eos nothing can end it early, so it must fit at its longest.
    longest_blocks = blocks_needed(longest_context(seq), block_size)
    if seq.ignore_eos and longest_blocks > num_blocks:
        raise ValueError(f"with ignore_eos the request grows to {longest_blocks} blocks "
                         f"({seq.num_prompt_tokens} prompt + {seq.max_tokens} max_tokens) "
                         f"but the pool has only {num_blocks}: it could never finish")
