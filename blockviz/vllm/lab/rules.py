"""Where nano-vllm's and vLLM's prefix caches part, and the classifier that names the rule behind
each difference the lab sees.

Each rule cites the code that decides it, in blockviz/engine/ (nano-vllm's nanovllm/engine/, line
for line) and in vLLM 0.32 (vllm-project/vllm, vllm/v1/core/). A rule with a BlockManager variant
(the block rules, blockviz/policies/vllm.py: the "vllm" policy has them all) or a feeder variant
(running_cap, run_nano) is found by running the stream again with it: a difference is
explained by the smallest set of rules with which nano-vllm does what vLLM did, provided that all
of them together do too. The token check has no variant (a real stream never makes two contents
share a 64-bit hash): it explains a difference when nano-vllm logged that it refused a hash hit.
What no rule explains is reported as unexplained, with the request and what each engine did.
"""
from dataclasses import dataclass
from itertools import combinations

from blockviz.policies.vllm import BLOCK_RULES, FREE_UNHASHED_FIRST, REGISTER_WHEN_SCHEDULED
from blockviz.vllm.lab.outcome import Key, Outcome

RUNNING_CAP = "running_cap"
TOKEN_CHECK = "token_check"
LAST_TOKEN = "last_token"
# BLOCK_RULES: put in by blockviz.policies.vllm's VllmBlockManager (with_rules gives each subset)
VARIANT_RULES = BLOCK_RULES + (RUNNING_CAP,)                   # running_cap: by run_nano, which feeds requests


@dataclass(frozen=True)
class Rule:
    name: str
    nano: str     # file: function, and what it does
    vllm: str


RULES = {
    FREE_UNHASHED_FIRST: Rule(
        FREE_UNHASHED_FIRST,
        "engine/block_manager.py: BlockManager.deallocate frees the table in reverse and _deallocate_block "
        "appends every freed block to the tail of free_block_ids; _allocate_block takes the head",
        "vllm/v1/core/single_type_kv_cache_manager.py: SingleTypeKVCacheManager.free frees in reverse; "
        "vllm/v1/core/block_pool.py: BlockPool.free_blocks prepends blocks without a block_hash to the free queue "
        "(FreeKVCacheBlockQueue.prepend_n, reused first) and appends hashed ones (append_n, LRU)"),
    REGISTER_WHEN_SCHEDULED: Rule(
        REGISTER_WHEN_SCHEDULED,
        "engine/scheduler.py: Scheduler.postprocess calls BlockManager.hash_blocks after the step is computed, "
        "so requests prefilled in one step cannot hit each other's blocks",
        "vllm/v1/core/kv_cache_manager.py: KVCacheManager.allocate_slots calls coordinator.cache_blocks when it "
        "schedules the tokens (up to num_computed + num_new tokens), so a request scheduled later in the same "
        "step already hits them (each layer writes the step's KV before its attention reads it)"),
    RUNNING_CAP: Rule(
        RUNNING_CAP,
        "engine/scheduler.py: Scheduler.schedule caps the requests of one step at max_num_seqs, so it admits "
        "every waiting request that fits while others run",
        "vllm/v1/core/sched/scheduler.py: Scheduler.schedule admits a waiting request only while len(self.running) < "
        "max_num_active_reqs (--max-num-seqs; blockviz vllm serve gives 4 on CPU), so the rest of a burst waits "
        "for a request to finish"),
    TOKEN_CHECK: Rule(
        TOKEN_CHECK,
        "engine/block_manager.py: BlockManager.can_allocate takes a hash hit only if the block's token_ids "
        "equal the prompt's",
        "vllm/v1/core/single_type_kv_cache_manager.py: FullAttentionManager.find_longest_cache_hit takes "
        "BlockPool.get_cached_block(block_hash) as it is: the hash is trusted"),
    LAST_TOKEN: Rule(
        LAST_TOKEN,
        "engine/block_manager.py: BlockManager.can_allocate never probes the last block: at most "
        "ceil(n / B) - 1 blocks of an n-token prompt hit",
        "vllm/v1/core/kv_cache_manager.py: KVCacheManager.get_computed_blocks caps a hit at num_tokens - 1 "
        "tokens, whole blocks: floor((n - 1) / B); the same number for every n >= 1, so this rule never "
        "makes a difference (the lab checks it on every request)"),
}


@dataclass(frozen=True)
class Difference:
    index: int                    # the request
    what: str                     # "cached_tokens" or "resident" (the cache once its batch finished)
    vllm: int                     # cached tokens, or blocks held
    nano: int
    only_vllm: frozenset[Key]     # blocks held by one engine only ("resident")
    only_nano: frozenset[Key]
    rules: tuple[str, ...]        # empty: unexplained
    alternatives: tuple[tuple[str, ...], ...] = ()   # other sets as small that explain it as well

    @property
    def explained(self) -> bool:
        return bool(self.rules)


def subsets(rules: tuple[str, ...] = VARIANT_RULES) -> list[frozenset[str]]:
    """Every set of variant rules, smallest first (the order the classifier tries them)."""
    return [frozenset(c) for n in range(len(rules) + 1) for c in combinations(rules, n)]


def explain(vllm: list[Outcome], variants: dict[frozenset[str], list[Outcome]]) -> list[Difference]:
    """Every difference between vLLM and nano-vllm (variants[frozenset()]), per request, each with the
    rules that explain it. `variants` holds nano-vllm's outcomes with each set of rules put in."""
    plain = variants[frozenset()]
    if len(plain) != len(vllm):
        raise ValueError(f"{len(vllm)} vLLM outcomes but {len(plain)} nano-vllm ones")
    everything = max(variants, key=len)
    out = []
    for i, (v, n) in enumerate(zip(vllm, plain)):
        for what, same in (("cached_tokens", lambda a, b: a.cached_tokens == b.cached_tokens),
                           ("resident", lambda a, b: a.resident == b.resident)):
            if same(v, n):
                continue
            found: list[tuple[str, ...]] = []
            if same(v, variants[everything][i]):
                matching = [s for s in variants if s and same(v, variants[s][i])]
                smallest = min(len(s) for s in matching)
                found = sorted((tuple(sorted(s, key=VARIANT_RULES.index)) for s in matching if len(s) == smallest),
                               key=lambda rs: [VARIANT_RULES.index(r) for r in rs])
            refused = n.refused_block is not None and v.cached_tokens > n.cached_tokens
            if not found and what == "cached_tokens" and refused:
                found = [(TOKEN_CHECK,)]
            rules, alternatives = (found[0], tuple(found[1:])) if found else ((), ())
            if what == "cached_tokens":
                out.append(Difference(i, what, v.cached_tokens, n.cached_tokens, frozenset(), frozenset(), rules,
                                      alternatives))
            else:
                out.append(Difference(i, what, len(v.resident), len(n.resident), v.resident - n.resident,
                                      n.resident - v.resident, rules, alternatives))
    return out


def hit_limits(prompt_length: int, block_size: int) -> tuple[int, int]:
    """The most blocks of a prompt each engine can take from its cache: (nano-vllm, vLLM)."""
    nano = -(-prompt_length // block_size) - 1        # every block but the last is probed
    vllm = (prompt_length - 1) // block_size          # num_tokens - 1 tokens, whole blocks
    return nano, vllm


def evicted_where(key: Key, outcomes: list[Outcome], before: int) -> tuple[int, int] | None:
    """(request, step) of the last eviction of `key` among the requests before `before`, if any."""
    found = None
    for i, o in enumerate(outcomes[:before]):
        for change in o.steps:
            if key in change.evicted:
                found = (i, change.step)
    return found
