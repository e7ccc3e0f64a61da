"""Seeded random workloads for a check: shared prefixes, identical prompts, requests that arrive
after others left (hits on free blocks), pools small enough to preempt, token budgets small
enough to chunk a prefill, shuffled free queues, and now and then a weak hash so blocks collide."""
from dataclasses import dataclass
from random import Random

from blockviz.limits import blocks_needed
from blockviz.session import request_label
from blockviz.workload import Request, Workload

LETTERS = tuple(range(ord("a"), ord("z") + 1))  # the Simulator's tokenizer shows them as text
WEAK_HASH_VALUES = 4


@dataclass(frozen=True)
class SeededWorkload:
    """A check's workload: the pool and requests (arrivals in steps; an engine that runs dry takes
    the next ones sooner), the seed that drew them, and the hash the check swaps in."""
    seed: int
    hash_values: int | None      # compute_hash reduced to this many values, or None: the real hash
    workload: Workload


def workload(seed: int) -> SeededWorkload:
    rng = Random(seed)
    block_size = rng.choice((2, 3, 4))
    prefixes = [tuple(rng.choice(LETTERS) for _ in range(rng.randint(1, 3) * block_size))
                for _ in range(rng.randint(1, 2))]
    prompts: list[tuple[int, ...]] = []
    for _ in range(rng.randint(2, 6)):
        if prompts and rng.random() < 0.2:
            prompts.append(rng.choice(prompts))  # the same prompt again: a hit, or a duplicate block
            continue
        prefix = rng.choice(prefixes) if rng.random() < 0.7 else ()
        suffix = tuple(rng.choice(LETTERS) for _ in range(rng.randint(0 if prefix else 1, 2 * block_size)))
        prompts.append(prefix + suffix)
    max_tokens = [rng.randint(1, 2 * block_size + 1) for _ in prompts]
    arrivals = sorted([0] + [rng.randint(0, 10) for _ in prompts[1:]])
    largest = max(blocks_needed(len(p) + m - 1, block_size) for p, m in zip(prompts, max_tokens))
    num_blocks = largest + rng.randint(0, 6)
    free_order = None
    if rng.random() < 0.3:
        free_order = list(range(num_blocks))
        rng.shuffle(free_order)
    requests = [Request(prompt, new, arrival=at, label=request_label(i))
                for i, (at, prompt, new) in enumerate(zip(arrivals, prompts, max_tokens))]
    max_num_seqs = rng.choice((1, 2, 3, 512))
    max_num_batched_tokens = rng.choice((block_size, 2 * block_size + 1, 3 * block_size, 64))
    hash_values = WEAK_HASH_VALUES if rng.random() < 0.25 else None
    return SeededWorkload(seed, hash_values, Workload(block_size, num_blocks, requests, max_num_seqs=max_num_seqs,
                                                      max_num_batched_tokens=max_num_batched_tokens,
                                                      free_order=free_order, when_idle="advance"))
