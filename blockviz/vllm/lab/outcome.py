"""What one engine did with one request: the tokens it took from its cache, what each of its
steps stored and evicted, and what it held afterwards.

A cached block is named by its whole prefix, the token ids from the prompt's start to the block's
end: both engines' hashes stand for exactly that (nano-vllm's xxh64 chain, vLLM's sha256 chain),
so the same key means the same block content in either engine.
"""
from dataclasses import dataclass

from blockviz.hits import running_hit_rates

Key = tuple[int, ...]


@dataclass(frozen=True)
class Change:
    step: int                   # the engine's own step (nano-vllm: its step; vLLM: its KV-event batch)
    stored: tuple[Key, ...]
    evicted: tuple[Key, ...]


@dataclass(frozen=True)
class Outcome:
    cached_tokens: int          # prompt tokens taken from the cache when the request was admitted
    steps: tuple[Change, ...]   # the steps of the request's batch (a burst: shared by its requests)
    resident: frozenset[Key]    # the cached blocks once its batch finished
    refused_block: int | None = None   # nano-vllm: the block whose hash it found holding other tokens

    @property
    def stored(self) -> list[Key]:
        return [k for c in self.steps for k in c.stored]

    @property
    def evicted(self) -> list[Key]:
        return [k for c in self.steps for k in c.evicted]


def hit_rate_curve(prompt_lengths: list[int], cached: list[int]) -> list[float]:
    """Cached prompt tokens over prompt tokens, so far, after each request (as vLLM's
    prefix_cache_hits / prefix_cache_queries count them): blockviz.hits.running_hit_rates."""
    return running_hit_rates(prompt_lengths, cached)
