"""Every pool size at once: a trace's prefix-cache hit rate at every size of an LRU cache of
blocks, from one pass of LRU stack distances (Mattson, Gecsei, Slutz and Traiger, "Evaluation
techniques for storage hierarchies", IBM Systems Journal 9(2), 1970: an LRU cache of C blocks
holds the C most recently used ones, so a block is in it exactly when fewer than C other blocks
were used since its last use: one distance a use answers the question for every C).

>>> from blockviz import traffic
>>> from blockviz.traffic import curve
>>> c = curve(traffic.load("conversation"), block_size=512, tokens_per_id=512)
>>> round(c.max_hit_rate, 3), c.hit_rate(0)
(0.373, 0.0)
>>> c.pool_for(c.max_hit_rate / 2) < c.pool_for(c.max_hit_rate)
True

The model (what is counted), a request at a time in trace order:

- A request arrives, and its prompt's blocks are looked up in order (0, 1, ...): the first
  `ceil(prompt / block_size) - 1` blocks only, as nano-vllm's `can_allocate` probes
  `range(seq.num_blocks - 1)`: **the last block is never probed**, even when it is full (its
  tokens are computed again so that prefill has a token to run). Block i hits at a pool of C
  blocks when it and every block before it are among the C most recently used blocks (a hash
  chain: lookup stops at the first miss). A hit block serves block_size prompt tokens.
- The request then holds, and on finishing releases, every block it filled: its whole prompt
  blocks (the unprobed last one too: the engine registers it, so a later prompt can hit it) and
  the blocks that hold **generated tokens** (the partial last prompt block, which decode fills,
  and `output` tokens' worth after it): `ceil((prompt + output) / block_size)` blocks in all. The
  generated ones take room in the cache as in the engine but never hit (the trace cannot say when
  a later prompt repeats an answer; the replay's generated tokens are never a prompt's either).
  generated=False leaves them out: a cache of prompt blocks only.
- Release order is the engine's: `deallocate` frees a block table from its end, so a request's
  first block becomes the most recently used one; blocks of one prefix are then always more recent
  than the blocks after them, and a lookup's hits are a prefix of the prompt at every size.
- Requests are served one at a time: **no request pins blocks while another arrives**. In the
  engine a running request's blocks cannot be evicted, so a pool of C blocks caches only C less
  what is running (the curve is an upper bound for tight pools), and a request arriving while an
  earlier one with its prefix still runs hits blocks that the model, too, counts as used.
- Keys are whole prefixes, as the engine's chained hashes: block j of a prompt is named by the ids
  up to the one holding its last token (a 64-bit polynomial hash of that id prefix) and where in
  that id it ends. tokens_per_id scales each 512-token id as the replay does
  (blockviz.traffic.tokens); pool sizes given to this module are real tokens (512 an id): a pool
  of P real tokens is `P * tokens_per_id // (512 * block_size)` blocks.
- A pool smaller than a request is counted like any other (the engine would refuse the request).

Two tiers (Curve.tiers): a GPU pool and a CPU pool. vLLM's CPU offloading (the OffloadingConnector,
vllm/distributed/kv_transfer/kv_connector/v1/offloading/scheduler.py, `_get_reqs_to_store`, with
vllm/v1/kv_offload/lru_manager.py) stores every newly full block of every scheduled request to the
CPU pool and touches the request's blocks there, and a request's lookup continues its GPU prefix
hit in the CPU pool (`get_num_new_matched_tokens`), loading the hits back. The CPU pool is then an
LRU cache over the same uses: it holds the most recent cpu_tokens worth of blocks, a superset of
the GPU's when larger. A victim cache (write_through=False) keeps only what the GPU evicts.

So the curve is the replay's hit rate without concurrency: what the faithful replay
(blockviz.traffic.replay) adds is pinning by running requests, preemption, and the duplicate left
behind when the never-probed last block of a block-aligned prompt is computed again (the engine
keeps the old copy in its free queue until evicted; the model moves it). docs/benchmarks.md
compares the two on both shipped traces.

Cost: one sort of the block uses and a merge-sort tree over the reused ones (counting, for each
reuse, the uses nested inside its reuse interval): O(n log^2 n) in numpy for n block uses, no
Python loop over blocks.
"""
from dataclasses import dataclass

import numpy as np

from blockviz import checks
from blockviz.traffic.lengths import HASH_BLOCK
from blockviz.traffic.trace import Trace

NEVER = np.iinfo(np.int64).max   # the distance of a block never used before: a miss at every size


@dataclass(frozen=True)
class Tiers:
    """How a two-tier cache serves a trace's prompt tokens (shares of all prompt tokens)."""
    gpu_tokens: int
    cpu_tokens: int
    gpu_hit_rate: float
    cpu_hit_rate: float
    loaded_tokens_per_s: float          # real tokens a second of trace loaded back from the CPU tier
    loaded_bytes_per_s: float | None    # the same in bytes, given bytes_per_token

    @property
    def hit_rate(self) -> float:
        return self.gpu_hit_rate + self.cpu_hit_rate


class Curve:
    """The hit rate at every pool size (see the module docstring for what is counted)."""

    def __init__(self, trace: Trace, block_size: int, tokens_per_id: int, generated: bool,
                 request: np.ndarray, distance: np.ndarray, prompt_tokens: np.ndarray):
        self.trace = trace
        self.block_size = block_size
        self.tokens_per_id = tokens_per_id
        self.generated = generated
        self.prompt_tokens = prompt_tokens          # per request, scaled as the replay makes them
        self.total_prompt_tokens = int(prompt_tokens.sum())
        hits = np.flatnonzero(distance != NEVER)
        order = hits[np.argsort(distance[hits], kind="stable")]
        # every probed block that hits at some size: its request and the pool (blocks) it needs
        self.hit_request = request[order]
        self.hit_blocks = distance[order] + 1       # hits at a pool of at least this many blocks

    # --- units ------------------------------------------------------------------------

    def blocks(self, pool_tokens: float) -> int:
        """Blocks in a pool of pool_tokens real tokens (512 an id; tokens_per_id scales them)."""
        return int(pool_tokens * self.tokens_per_id // (HASH_BLOCK * self.block_size))

    def pool_tokens(self, blocks: np.ndarray | int):
        """The smallest pool, in real tokens, holding that many blocks."""
        return -(-np.asarray(blocks, dtype=np.int64) * (HASH_BLOCK * self.block_size) // self.tokens_per_id)

    # --- the curve --------------------------------------------------------------------

    def cached_blocks(self, pool_tokens: float) -> int:
        return int(np.searchsorted(self.hit_blocks, self.blocks(pool_tokens), side="right"))

    def hit_rate(self, pool_tokens: float) -> float:
        """Prompt-token hit rate of an LRU cache of pool_tokens real tokens."""
        if not pool_tokens >= 0:
            raise ValueError(f"pool_tokens must be >= 0, got {pool_tokens!r}")
        return self.cached_blocks(pool_tokens) * self.block_size / self.total_prompt_tokens

    def cached_tokens(self, pool_tokens: float) -> np.ndarray:
        """Per request (trace order), the prompt tokens the cache serves at that pool size."""
        hits = self.hit_request[:self.cached_blocks(pool_tokens)]
        return np.bincount(hits, minlength=len(self.prompt_tokens)).astype(np.int64) * self.block_size

    @property
    def max_hit_rate(self) -> float:
        """The hit rate of an infinite cache under this model (the never-probed last block and the
        partial last block left out, so below trace.theoretical_hit_rate())."""
        return len(self.hit_blocks) * self.block_size / self.total_prompt_tokens

    def points(self) -> tuple[np.ndarray, np.ndarray]:
        """(pool sizes in real tokens, hit rate at each): every size where the rate changes, from
        the smallest pool with a hit to the one that reaches max_hit_rate (a step function: the
        rate holds from each size to the next)."""
        if not len(self.hit_blocks):
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        last = np.flatnonzero(np.diff(self.hit_blocks, append=NEVER))   # the last hit needing each size
        return self.pool_tokens(self.hit_blocks[last]), (last + 1) * self.block_size / self.total_prompt_tokens

    def pool_for(self, hit_rate: float) -> int | None:
        """The smallest pool (real tokens) whose hit rate is at least hit_rate; None if none is."""
        checks.real("hit_rate", hit_rate, 0, 1)
        need = int(np.ceil(hit_rate * self.total_prompt_tokens / self.block_size))   # blocks that must hit
        if need > 0 and (need - 1) * self.block_size / self.total_prompt_tokens >= hit_rate:
            need -= 1   # rounding: the rate of need - 1 blocks, computed as hit_rate computes it, is enough
        if need <= 0:
            return 0
        if need > len(self.hit_blocks):
            return None
        return int(self.pool_tokens(self.hit_blocks[need - 1]))

    def tiers(self, gpu_tokens: float, cpu_tokens: float, bytes_per_token: int | None = None,
              write_through: bool = True) -> Tiers:
        """A GPU pool of gpu_tokens and a CPU pool of cpu_tokens (real tokens), both LRU; a prompt
        looks up the GPU first, then continues its prefix in the CPU tier, whose hits are loaded
        back. write_through=True is vLLM's CPU offloading (OffloadingConnector): every block is
        stored to the CPU as soon as it is computed and the CPU tier's LRU order follows the same
        uses as the GPU's, so the CPU holds the cpu_tokens most recent blocks and adds hits only
        where it is larger than the GPU pool. write_through=False: the CPU keeps what the GPU
        evicts (a victim cache, as SGLang HiCache's write_back policy), so the two are one LRU
        order of gpu_tokens + cpu_tokens, the GPU its most recent part. See the module docstring."""
        for name, value in (("gpu_tokens", gpu_tokens), ("cpu_tokens", cpu_tokens)):
            if not value >= 0:
                raise ValueError(f"{name} must be >= 0, got {value!r}")
        checks.flag("write_through", write_through)
        gpu_blocks, cpu_blocks = self.blocks(gpu_tokens), self.blocks(cpu_tokens)
        reach = max(gpu_blocks, cpu_blocks) if write_through else gpu_blocks + cpu_blocks
        gpu = self.cached_blocks(gpu_tokens)
        both = int(np.searchsorted(self.hit_blocks, reach, side="right"))
        loaded = (both - gpu) * self.block_size * HASH_BLOCK / self.tokens_per_id   # real tokens
        seconds = max(duration_s(self.trace), 1e-9)
        return Tiers(int(gpu_tokens), int(cpu_tokens), gpu * self.block_size / self.total_prompt_tokens,
                     (both - gpu) * self.block_size / self.total_prompt_tokens, loaded / seconds,
                     None if bytes_per_token is None else loaded * bytes_per_token / seconds)

    def __repr__(self) -> str:
        return (f"<Curve {self.trace.name}: block size {self.block_size}, {self.tokens_per_id} tokens an id, "
                f"max hit rate {self.max_hit_rate:.1%}>")


def duration_s(trace: Trace) -> float:
    """First arrival to last, seconds (Summary.duration_s without the rest of the summary)."""
    return float(trace.timestamps_ms[-1] - trace.timestamps_ms[0]) / 1000


# --- the one pass ---------------------------------------------------------------------------

def curve(trace: Trace, block_size: int = HASH_BLOCK, tokens_per_id: int = HASH_BLOCK,
          generated: bool = True) -> Curve:
    """The trace's hit rate at every pool size in one pass (see the module docstring)."""
    checks.whole("block_size", block_size, 1)
    checks.whole("tokens_per_id", tokens_per_id, 1, HASH_BLOCK)
    checks.flag("generated", generated)
    uses = block_uses(trace, block_size, tokens_per_id, generated)
    distance = reuse_distances(uses.keys, uses.start)
    probed = distance[uses.probe]
    # a hash chain: a block hits only where every block before it hits (the largest distance so far)
    request = uses.request[uses.probe]
    if len(probed):   # lift each request above the last (requests are in order) for one running max
        n = len(uses.keys)
        lift = request * (n + 2)
        running = np.maximum.accumulate(np.minimum(probed, n + 1) + lift) - lift
        probed = np.where(running > n, NEVER, running)
    return Curve(trace, block_size, tokens_per_id, generated, request, probed, uses.prompt_tokens)


@dataclass
class Uses:
    """The block uses in time order: keys (-1: a block of its own, never used again), each use's
    request and the index of that request's first use; probe: the uses that are lookups, in
    prompt order within each request."""
    keys: np.ndarray
    request: np.ndarray
    start: np.ndarray
    probe: np.ndarray
    prompt_tokens: np.ndarray


def prompt_lengths(trace: Trace, tokens_per_id: int) -> np.ndarray:
    """trace.prompt_lengths(tokens_per_id) for all requests at once (lengths.prompt_length)."""
    counts = np.diff(trace.offsets)
    last = trace.input_lengths - HASH_BLOCK * (counts - 1)
    return (counts - 1) * tokens_per_id + -(-last * tokens_per_id // HASH_BLOCK)


def prefix_keys(trace: Trace) -> np.ndarray:
    """One key per hash id position naming its whole id prefix (equal keys: equal prefixes):
    a polynomial hash mod 2**64 of the prefix, made dense. The format says an id names its prefix;
    the engine's hash chain does not rely on it, nor does this."""
    _, dense = np.unique(trace.hash_ids, return_inverse=True)
    values = dense.astype(np.uint64) + np.uint64(1)
    n = len(values)
    counts = np.diff(trace.offsets)
    position = np.arange(n) - np.repeat(trace.offsets[:-1], counts)
    # H_j = sum_{i<=j} v_i * P**(j-i) = P**j * sum_{i<=j} v_i * P**-i, P odd (invertible mod 2**64)
    p, p_inv = np.uint64(0x9E3779B97F4A7C15), np.uint64(pow(0x9E3779B97F4A7C15, -1, 2**64))
    longest = int(counts.max())
    with np.errstate(over="ignore"):
        powers = np.concatenate([[np.uint64(1)], np.cumprod(np.full(max(longest - 1, 0), p, dtype=np.uint64))])
        inverse = np.concatenate([[np.uint64(1)], np.cumprod(np.full(max(longest - 1, 0), p_inv, dtype=np.uint64))])
        terms = values * inverse[position]
        sums = np.cumsum(terms)
        before = np.concatenate([[np.uint64(0)], sums])[trace.offsets[:-1]]   # sum up to each request's start
        prefix = (sums - np.repeat(before, counts)) * powers[position]
    return np.unique(prefix, return_inverse=True)[1].astype(np.int64)


def block_uses(trace: Trace, block_size: int, tokens_per_id: int, generated: bool) -> Uses:
    prompt = prompt_lengths(trace, tokens_per_id)
    output = np.maximum(1, -(-trace.output_lengths * tokens_per_id // HASH_BLOCK))
    full = prompt // block_size                                    # whole prompt blocks: cached
    held = -(-(prompt + output) // block_size) if generated else full
    own = held - full                                              # blocks holding generated tokens
    probes = -(-prompt // block_size) - 1                          # the last block is never probed
    per_request = own + full
    start = np.concatenate([[0], np.cumsum(per_request)])
    n = int(start[-1])
    requests = len(trace)
    request = np.repeat(np.arange(requests, dtype=np.int64), per_request)
    within = np.arange(n, dtype=np.int64) - np.repeat(start[:-1], per_request)
    # released from the table's end: own blocks first, then whole blocks j = full-1 .. 0
    after_own = within - np.repeat(own, per_request)
    j = np.where(after_own >= 0, np.repeat(full - 1, per_request) - after_own, -1)
    keyed = j >= 0
    keys = np.full(n, -1, dtype=np.int64)
    if keyed.any():
        ids = prefix_keys(trace)
        end = (j[keyed] + 1) * block_size                           # the block's last token + 1
        k = (end - 1) // tokens_per_id                              # the id holding it
        into = end - k * tokens_per_id                              # 1..tokens_per_id tokens of it
        keys[keyed] = ids[trace.offsets[request[keyed]] + k] * tokens_per_id + (into - 1)
    probe = keyed & (j < np.repeat(probes, per_request))
    # lookups in prompt order (uses are in release order, last block first): reverse each request
    probe_at = np.flatnonzero(probe)
    order = np.lexsort((j[probe_at], request[probe_at]))
    return Uses(keys, request, start[request], probe_at[order], prompt)


def reuse_distances(keys: np.ndarray, start: np.ndarray) -> np.ndarray:
    """For each use t of a key: the number of distinct blocks used in (p, start[t]), p the key's
    last use before start[t] (NEVER if none): its LRU stack depth when its request arrives.
    Keys -1 are blocks of their own (never seen again). Distinct blocks in (p, s) = uses in (p, s)
    less those used again before s: (s - p - 1) - #{uses j > p whose next use is before s}."""
    n = len(keys)
    distance = np.full(n, NEVER, dtype=np.int64)
    keyed = np.flatnonzero(keys >= 0)
    if not len(keyed):
        return distance
    by_key = keyed[np.lexsort((keyed, keys[keyed]))]           # uses of each key in time order
    same = keys[by_key[1:]] == keys[by_key[:-1]]
    previous = np.full(n, -1, dtype=np.int64)
    following = np.full(n, n, dtype=np.int64)
    previous[by_key[1:][same]] = by_key[:-1][same]
    following[by_key[:-1][same]] = by_key[1:][same]
    # a key used twice in one request (a malformed trace): its last use before the request counts
    while True:
        inside = (previous >= 0) & (previous >= start)
        if not inside.any():
            break
        previous[inside] = previous[previous[inside]]
    asked = np.flatnonzero(previous >= 0)
    p, s = previous[asked], start[asked]
    reused = np.flatnonzero(following < n)                        # uses j with a next use
    nested = dominated(reused, following[reused], p, s)
    distance[asked] = (s - p - 1) - nested
    return distance


def dominated(x: np.ndarray, y: np.ndarray, qx: np.ndarray, qy: np.ndarray) -> np.ndarray:
    """For each query i, the number of points with x > qx[i] and y < qy[i] (a merge-sort tree:
    points in y order, x sorted within aligned blocks of each power of two; a query's points with
    y < qy are a prefix, cut into at most log2(n) such blocks, each counted by one search)."""
    count = np.zeros(len(qx), dtype=np.int64)
    n = len(x)
    if not n or not len(qx):
        return count
    in_y = np.argsort(y, kind="stable")
    xs, ys = x[in_y].astype(np.int64), y[in_y]
    prefix = np.searchsorted(ys, qy, side="left")               # points with y < qy
    span = int(xs.max()) + 2
    level, size = 0, 1
    blocks = np.arange(n, dtype=np.int64)
    while size <= n:
        sorted_keys = np.sort(blocks // size * span + xs, kind="stable")
        take = np.flatnonzero((prefix >> level) & 1)
        if len(take):
            block = (prefix[take] >> level) - 1                  # the aligned block [block*size, +size)
            above = np.searchsorted(sorted_keys, block * span + qx[take], side="right")
            count[take] += (block + 1) * size - above
        level, size = level + 1, size * 2
    return count
