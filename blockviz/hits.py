"""The prefix cache's hits, counted in one place: the tokens each request's prompt took from the
cache when it was admitted, and hit rates that say what they are a share of.

A request's *cached tokens* are the tokens its prefix cache served at admission: nano-vllm's
`num_cached_tokens` right after `BlockManager.allocate` (the `can_allocate` result, whole blocks),
vLLM's `usage.prompt_tokens_details.cached_tokens`. A preempted request is admitted again later, its
prompt and what it generated so far probed again; vLLM reports the first admission, and so does a
hit rate over PROMPT_TOKENS.

Where they are counted:
- live, on an engine: `AdmissionWatch(scheduler, on_admit)` (the workload driver's `Served.cached_at_admission`);
- from a recording: `admitted(events)`, the requests one step admitted and their cached blocks
  (the demo's ledger, the metrics view);
- from a server's replies: the sums below (the fleet, the lessons, the policy lab).

Every rate is a HitRate: cached tokens, the denominator, and what the denominator counts.
"""
from dataclasses import dataclass
from typing import Callable, Iterable

import numpy as np

from blockviz.engine.sequence import Sequence
from blockviz.recording.events import CanAllocate, Event, Scheduled

# What a hit rate's denominator counts:
PROMPT_TOKENS = "prompt tokens"   # each request's prompt once, its cached tokens at its first admission (vLLM's)
ADMITTED_TOKENS = "tokens at each admission"   # every admission, a re-admitted request's prompt + output so far again
PREFILLED_TOKENS = "prompt tokens served or prefilled"   # the cache's tokens + the prefill chunks computed so far
QUERIED_TOKENS = "tokens queried (vLLM /metrics)"   # vllm:prefix_cache_hits over vllm:prefix_cache_queries


@dataclass(frozen=True)
class HitRate:
    cached_tokens: int
    out_of: int                         # the denominator, in tokens
    denominator: str = PROMPT_TOKENS    # what out_of counts

    @property
    def value(self) -> float:
        """cached_tokens / out_of; 0.0 when nothing was counted."""
        return self.cached_tokens / self.out_of if self.out_of else 0.0

    def __float__(self) -> float:
        return self.value

    def __str__(self) -> str:
        return f"{self.value:.1%} of {self.out_of:,} {self.denominator}"


def hit_rate(cached_tokens: Iterable[int], prompt_tokens: Iterable[int], denominator: str = PROMPT_TOKENS) -> HitRate:
    """The cached tokens over the prompt tokens, summed over requests (as vLLM's cached_tokens)."""
    return HitRate(int(np.sum(np.fromiter(cached_tokens, dtype=np.int64))),
                   int(np.sum(np.fromiter(prompt_tokens, dtype=np.int64))), denominator)


def running_hit_rates(prompt_tokens: Iterable[int], cached_tokens: Iterable[int]) -> list[float]:
    """The hit rate over PROMPT_TOKENS so far, after each request in order (as vLLM's
    prefix_cache_hits / prefix_cache_queries grow)."""
    out, hits, queries = [], 0, 0
    for n, c in zip(prompt_tokens, cached_tokens):
        hits, queries = hits + c, queries + n
        out.append(hits / queries if queries else 0.0)
    return out


def binned_hit_rates(bins: np.ndarray, prompt_tokens: np.ndarray, cached_tokens: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
    """(bin, hit rate over PROMPT_TOKENS of the requests in it) for each bin with a prompt token;
    `bins` gives each request's bin (a whole number >= 0)."""
    prompt = np.bincount(bins, weights=prompt_tokens)
    cached = np.bincount(bins, weights=cached_tokens)
    keep = prompt > 0
    return np.flatnonzero(keep), cached[keep] / prompt[keep]


def admitted(events: Iterable[Event]) -> dict[int, int]:
    """The requests one recorded step admitted, each with its cached blocks: a `can_allocate` that
    said yes (CanAllocate.result, the blocks found) for a request the step then scheduled. (One
    that fitted but found no room in the step's token budget is not scheduled, and waits.)"""
    found: dict[int, int] = {}
    scheduled: set[int] = set()
    for e in events:
        if type(e) is CanAllocate and e.result >= 0:
            found[e.seq_id] = e.result
        elif type(e) is Scheduled:
            scheduled.update(e.seq_ids)
    return {seq_id: blocks for seq_id, blocks in found.items() if seq_id in scheduled}


class AdmissionWatch:
    """Calls on_admit(seq, cached tokens) at each admission a live scheduler makes, right after its
    BlockManager's allocate set num_cached_tokens. close() lets go."""

    def __init__(self, scheduler, on_admit: Callable[[Sequence, int], None]):
        self.bm = bm = scheduler.block_manager
        allocate = bm.allocate

        def allocated(seq: Sequence, *args):
            allocate(seq, *args)
            on_admit(seq, seq.num_cached_tokens)

        bm.allocate = allocated

    def close(self):
        del self.bm.allocate
