"""A request trace held as arrays: when each request came, how long its prompt and output were,
and which 512-token blocks its prompt was made of (hash ids)."""
from dataclasses import dataclass

import numpy as np

from blockviz.traffic.lengths import HASH_BLOCK, prompt_length


@dataclass(frozen=True)
class Summary:
    requests: int
    prompt_tokens: int
    output_tokens: int
    longest_prompt: int
    longest_request: int      # prompt + output
    duration_s: float         # first arrival to last
    distinct_blocks: int      # distinct hash ids
    prompt_blocks: int        # hash ids over all prompts

    def __str__(self) -> str:
        return (f"{self.requests:,} requests over {self.duration_s:,.0f} s: {self.prompt_tokens:,} prompt tokens "
                f"(longest {self.longest_prompt:,}), {self.output_tokens:,} output tokens, "
                f"{self.distinct_blocks:,} distinct blocks of {self.prompt_blocks:,}")


class Trace:
    """Requests in arrival order. Build one with blockviz.traffic.load; slices share its arrays."""

    def __init__(self, name: str, timestamps_ms: np.ndarray, input_lengths: np.ndarray,
                 output_lengths: np.ndarray, offsets: np.ndarray, hash_ids: np.ndarray):
        self.name = name
        self.timestamps_ms = timestamps_ms
        self.input_lengths = input_lengths
        self.output_lengths = output_lengths
        self.offsets = offsets      # request i's ids are hash_ids[offsets[i]:offsets[i + 1]]
        self.hash_ids = hash_ids

    def __len__(self) -> int:
        return len(self.input_lengths)

    def __repr__(self) -> str:
        return f"<Trace {self.name!r}: {len(self):,} requests>"

    def ids(self, i: int) -> np.ndarray:
        """Request i's hash ids, one per 512-token block of its prompt."""
        return self.hash_ids[self.offsets[i]:self.offsets[i + 1]]

    def summary(self) -> Summary:
        total = self.input_lengths + self.output_lengths
        return Summary(len(self), int(self.input_lengths.sum()), int(self.output_lengths.sum()),
                       int(self.input_lengths.max()), int(total.max()),
                       float(self.timestamps_ms[-1] - self.timestamps_ms[0]) / 1000,
                       len(np.unique(self.hash_ids)), len(self.hash_ids))

    def arrivals(self, bin_s: float = 60) -> np.ndarray:
        """Requests arriving in each bin of bin_s seconds, from the first arrival."""
        if not bin_s > 0:
            raise ValueError(f"bin_s must be > 0 seconds, got {bin_s!r}")
        seconds = (self.timestamps_ms - self.timestamps_ms[0]) / 1000
        return np.bincount((seconds // bin_s).astype(np.int64))

    # --- slices ---------------------------------------------------------------------

    def rows(self, start: int, stop: int, name: str) -> "Trace":
        lo, hi = self.offsets[start], self.offsets[stop]
        return Trace(name, self.timestamps_ms[start:stop], self.input_lengths[start:stop],
                     self.output_lengths[start:stop], self.offsets[start:stop + 1] - lo, self.hash_ids[lo:hi])

    def head(self, n: int) -> "Trace":
        """The first n requests."""
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n:
            raise ValueError(f"head takes a number of requests >= 1, got {n!r}")
        return self.rows(0, min(int(n), len(self)), f"{self.name}[:{n}]")

    def window(self, start_s: float, end_s: float) -> "Trace":
        """The requests that arrive in [start_s, end_s) seconds after the trace's first arrival
        (their timestamps kept, so a replay of the window starts at its first request)."""
        if not 0 <= start_s < end_s:
            raise ValueError(f"a window needs 0 <= start_s < end_s, got {start_s!r}, {end_s!r}")
        seconds = (self.timestamps_ms - self.timestamps_ms[0]) / 1000
        lo, hi = np.searchsorted(seconds, [start_s, end_s], side="left")
        if lo == hi:
            raise ValueError(f"no request arrives in [{start_s:g}, {end_s:g}) s: the trace spans "
                             f"{seconds[-1]:g} s")
        return self.rows(int(lo), int(hi), f"{self.name}[{start_s:g}s:{end_s:g}s]")

    # --- what an infinite cache could do --------------------------------------------

    def theoretical_cached_tokens(self, tokens_per_id: int = HASH_BLOCK) -> np.ndarray:
        """Per request, the prompt tokens an infinite cache could serve: a block hits when it and
        every block before it in the prompt appeared in an earlier request (ids name whole prefixes,
        so it is the longest run of leading ids seen before); a hit block serves its tokens, 512, or
        the prompt's rest for a partial last block. Requests of this trace only (a slice starts cold).
        tokens_per_id: the same for prompts scaled to that many tokens an id (blockviz.traffic.tokens)."""
        seen: set[int] = set()
        cached = np.zeros(len(self), dtype=np.int64)
        for i in range(len(self)):
            ids = self.ids(i)
            hits = 0
            for h in ids.tolist():
                if h not in seen:
                    break
                hits += 1
            cached[i] = min(hits * tokens_per_id, prompt_length(ids, int(self.input_lengths[i]), tokens_per_id))
            seen.update(ids.tolist())
        return cached

    def prompt_lengths(self, tokens_per_id: int = HASH_BLOCK) -> np.ndarray:
        """Prompt tokens per request, scaled to tokens_per_id tokens an id (512: the trace's own)."""
        if tokens_per_id == HASH_BLOCK:
            return self.input_lengths
        return np.array([prompt_length(self.ids(i), int(n), tokens_per_id)
                         for i, n in enumerate(self.input_lengths)], dtype=np.int64)

    def theoretical_hit_rate(self, tokens_per_id: int = HASH_BLOCK) -> float:
        """The share of prompt tokens an infinite cache could serve: theoretical_cached_tokens()
        summed, over all prompt tokens: the bound replay()'s hit_rate stays under."""
        return float(self.theoretical_cached_tokens(tokens_per_id).sum() / self.prompt_lengths(tokens_per_id).sum())
