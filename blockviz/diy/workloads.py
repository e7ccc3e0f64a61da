"""Seeded random workloads for a check: shared prefixes, identical prompts, requests that arrive
after others left (hits on free blocks), pools small enough to preempt, token budgets small
enough to chunk a prefill, shuffled free queues, and now and then a weak hash so blocks collide."""
from dataclasses import dataclass
from random import Random

from blockviz.limits import blocks_needed
from blockviz.session import request_label

LETTERS = tuple(range(ord("a"), ord("z") + 1))  # the Simulator's tokenizer shows them as text
WEAK_HASH_VALUES = 4


@dataclass(frozen=True)
class Request:
    label: str
    arrives: int                 # added once this many steps have run (sooner if the engine runs dry)
    prompt: tuple[int, ...]
    max_tokens: int


@dataclass(frozen=True)
class Workload:
    seed: int
    block_size: int
    num_blocks: int
    max_num_seqs: int
    max_num_batched_tokens: int
    free_order: tuple[int, ...] | None
    hash_values: int | None      # compute_hash reduced to this many values, or None: the real hash
    requests: tuple[Request, ...]  # in arrival order

    def simulator_options(self) -> dict:
        return {"num_blocks": self.num_blocks, "block_size": self.block_size, "max_num_seqs": self.max_num_seqs,
                "max_num_batched_tokens": self.max_num_batched_tokens,
                "free_order": None if self.free_order is None else list(self.free_order)}


def workload(seed: int) -> Workload:
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
    requests = tuple(Request(request_label(i), at, prompt, new)
                     for i, (at, prompt, new) in enumerate(zip(arrivals, prompts, max_tokens)))
    return Workload(seed, block_size, num_blocks, rng.choice((1, 2, 3, 512)),
                    rng.choice((block_size, 2 * block_size + 1, 3 * block_size, 64)),
                    None if free_order is None else tuple(free_order),
                    WEAK_HASH_VALUES if rng.random() < 0.25 else None, requests)


def due(workload: Workload, added: int, steps: int, idle: bool) -> tuple[Request, ...]:
    """The requests to add before the next step, `added` of them being in already: those whose time
    has come, or the next ones when the engine has nothing left to run."""
    pending = workload.requests[added:]
    if not pending:
        return ()
    now = max(steps, pending[0].arrives) if idle else steps
    return tuple(r for r in pending if r.arrives <= now)


def add(sim, request: Request):
    sim.add(list(request.prompt), max_tokens=request.max_tokens, label=request.label)


def play(sim, workload: Workload):
    """Run a Simulator built with workload.simulator_options() through the workload to its end (the
    engine with its real hash: a workload with a weak one runs differently here)."""
    added = 0
    while True:
        arriving = due(workload, added, sim.num_steps, sim.is_finished())
        for request in arriving:
            add(sim, request)
        added += len(arriving)
        if sim.is_finished():
            return sim
        sim.step()
