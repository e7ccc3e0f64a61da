"""SGLang's radix tree on real traffic (issue 36, item 5): the "sglang" policy's replay of both
shipped traces beside nano-vllm's and vLLM's at the same pool sizes, its speed and memory on the
whole conversation trace at 50M tokens (goal <= 2 minutes, <= 2 GB), and the mechanisms behind
each difference, each measured by a small experiment.

    PYTHONPATH=. .venv/bin/python bench/radix_traffic.py --speed [--profile]
    PYTHONPATH=. .venv/bin/python bench/radix_traffic.py --versus [--jobs 2]      # 30 replays, minutes
    PYTHONPATH=. .venv/bin/python bench/radix_traffic.py --mechanisms [--jobs 2]  # variants and counters
    PYTHONPATH=. .venv/bin/python bench/radix_traffic.py --recency [--jobs 2]     # what counts as touched
    PYTHONPATH=. .venv/bin/python bench/radix_traffic.py --page-size [--head 2000]
    PYTHONPATH=. .venv/bin/python bench/radix_traffic.py --inclusion [500]           # a stack algorithm?

Every replay is block size 512, every token real, arrivals at the timestamps, in a fresh process
(its peak memory is that process's maxrss, its CPU time the one core it ran on). In that process
the registry's policies are replaced by counting subclasses that decide exactly as the registered
ones (same name, same decisions; they only count), or, for --mechanisms, by variants that each
change one mechanism:

- "sglang, prompt only": a finished request inserts its prompt's pages, not its generated tokens;
  "nano-vllm, prompt only": blocks are hashed (cached) only while prefilling.
- "sglang, page eviction": evict takes only the pages it needs off the oldest leaf's tail (the
  leaf split there) instead of whole leaves.
- "nano-vllm, unhashed blocks first": vLLM's rule that a freed block without a hash goes to the
  head of the free queue (what SGLang's separate free list does), alone.
- "vllm, prompt only": vLLM's rules with blocks hashed only while prefilling.
- "sglang, split tail keeps its age" (--recency): a match or insert that ends inside a node stamps
  only the head it splits off; SGLang stamps the node first, so the tail it did not use counts as
  touched now. "sglang, no stamp at admission": the scheduler's match stamps nothing (inserts do).
  Combined with page eviction or prompt only, as named.
"""
import argparse
import cProfile
import io
import json
import pstats
import random
import resource
import subprocess
import sys
import time
from array import array
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from blockviz import policies, traffic
from blockviz.engine.block_manager import BlockManager
from blockviz.engine.scheduler import Scheduler
from blockviz.engine.sequence import SequenceStatus
from blockviz.hits import AdmissionWatch
from blockviz.policies.policy import Policy
from blockviz.policies.sglang import SglangBlockManager, _RadixCache
from blockviz.policies.vllm import FREE_UNHASHED_FIRST, VllmBlockManager, with_rules
from blockviz.radix.base_prefix_cache import EvictResult, InsertParams, MatchPrefixParams
from blockviz.radix import radix_cache
from blockviz.radix.radix_cache import RadixCache, RadixKey, TreeNode
from blockviz.sim import Simulator
from blockviz.traffic.curve import curve
from blockviz.traffic.lengths import output_length
from blockviz.traffic.tokens import OUTPUT_TOKEN, prompt_tokens

POOLS = [1_000_000, 3_000_000, 10_000_000, 30_000_000, 50_000_000]   # real tokens, as bench/traffic.py --versus
POLICIES = ("nano-vllm", "vllm", "sglang")
TIGHT = [1_000_000, 3_000_000]   # where the pool is short and the mechanisms show
COUNTS: dict = {}                # what this process's replay counted


# --- counting: the registered policies, counting what they do -------------------------------------

def count(key: str, n: int = 1):
    COUNTS[key] = COUNTS.get(key, 0) + n


class HashChainCounts:
    """For nano-vllm's and vLLM's BlockManagers: blocks evicted while a block that follows them in a
    chain is still cached (that block and its descendants unreachable: not leaf-first), generated
    tokens in blocks made cached, blocks computed twice (a hash registered over another block)."""

    def _count_init(self):
        self.parent: dict[int, int] = {}    # hash -> the hash of the block before it
        self.children: dict[int, int] = {}  # hash -> cached blocks that follow it

    def _allocate_block(self) -> int:
        block = self.blocks[self.free_block_ids[0]]
        h = block.hash
        if h != -1 and self.hash_to_block_id.get(h) == block.block_id:   # cached content dropped
            count("evicted blocks")
            if self.children.get(h, 0):
                count("evicted with a cached block after it")
            p = self.parent.pop(h)
            self.children[p] = self.children.get(p, 0) - 1
        return super()._allocate_block()

    def hash_blocks(self, seq):
        start = seq.num_cached_tokens // self.block_size
        end = (seq.num_cached_tokens + seq.num_scheduled_tokens) // self.block_size
        super().hash_blocks(seq)
        for i in range(start, end):
            h = self.blocks[seq.block_table[i]].hash
            p = self.blocks[seq.block_table[i - 1]].hash if i > 0 else -1
            if h in self.parent:   # registered already (vLLM registers when scheduled, then again)
                continue
            self.parent[h] = p
            self.children[p] = self.children.get(p, 0) + 1
            if (i + 1) * self.block_size > seq.num_prompt_tokens:
                count("generated tokens cached", (i + 1) * self.block_size - max(seq.num_prompt_tokens, i * self.block_size))


class CountedNano(HashChainCounts, BlockManager):
    def __init__(self, num_blocks, block_size):
        super().__init__(num_blocks, block_size)
        self._count_init()


class CountedVllm(HashChainCounts, VllmBlockManager):
    def __init__(self, num_blocks, block_size):
        super().__init__(num_blocks, block_size)
        self._count_init()


class CountedUnhashedFirst(HashChainCounts, with_rules(frozenset({FREE_UNHASHED_FIRST}))):
    """nano-vllm with vLLM's one rule that a block without a hash (content-less: the partial last
    block) goes back to the head of the free queue, so it is reused before a cached block is
    evicted: what SGLang's separate free list gives."""

    def __init__(self, num_blocks, block_size):
        super().__init__(num_blocks, block_size)
        self._count_init()


class CountedSglang(SglangBlockManager):
    """Tokens evict was asked for and took (whole leaves), generated tokens inserted, duplicate
    pages given up at an insert."""

    def __init__(self, num_blocks, block_size):
        super().__init__(num_blocks, block_size)
        self.inserted_before = 0
        evict = self.tree.evict

        def counted(params):
            result = evict(params)
            count("evict calls")
            count("tokens asked", params.num_tokens)
            count("tokens evicted", result.num_tokens_evicted)
            return result

        self.tree.evict = counted

    def _insert_cache(self, seq, num_tokens):
        B = self.block_size
        before = list(seq.block_table)
        key = super()._insert_cache(seq, num_tokens)
        count("duplicate pages given up", sum(a != b for a, b in zip(before, seq.block_table)))
        if seq.status == SequenceStatus.FINISHED:
            count("generated tokens cached", max(0, len(key) - max(seq.num_prompt_tokens, self.inserted_before)))
        return key

    def deallocate(self, seq):
        self.inserted_before = (self.inserted.get(seq.seq_id, 0) // self.block_size) * self.block_size
        super().deallocate(seq)


def pinned_tokens(bm: BlockManager) -> int:
    """Tokens of pages that running requests hold (nano-vllm: every used block; sglang: used pages
    but the tree's unlocked ones)."""
    if isinstance(bm, SglangBlockManager):
        return (len(bm.used_block_ids) - bm.tree.evictable_size() // bm.block_size) * bm.block_size
    return len(bm.used_block_ids) * bm.block_size


def sample_pinned():
    schedule = Scheduler.schedule

    def sampled(self):
        out = schedule(self)
        count("steps sampled")
        count("pinned tokens (sum over steps)", pinned_tokens(self.block_manager))
        return out

    Scheduler.schedule = sampled


# --- variants: one mechanism changed ----------------------------------------------------------------

class PromptOnlySglang(CountedSglang):
    """A finished request inserts its prompt's pages only (SGLang inserts prompt and output)."""

    def deallocate(self, seq):
        if seq.status == SequenceStatus.FINISHED:
            self._insert_cache(seq, min(seq.num_cached_tokens, seq.num_prompt_tokens))
            seq.status = SequenceStatus.RUNNING   # so the parent's release does not insert the output
            super().deallocate(seq)
            seq.status = SequenceStatus.FINISHED
        else:
            super().deallocate(seq)


class PromptOnlyNano(CountedNano):
    """Blocks hashed (cached) only while prefilling: generated tokens never cached."""

    def hash_blocks(self, seq):
        if seq.is_prefill:
            super().hash_blocks(seq)


class PromptOnlyVllm(CountedVllm):
    """vLLM's rules with blocks hashed (cached) only while prefilling: a generated token's block is
    never cached, so it goes back to the head of the free queue (FREE_UNHASHED_FIRST)."""

    def hash_blocks(self, seq):
        if seq.is_prefill:
            super().hash_blocks(seq)


class PageEvictSglang(CountedSglang):
    """evict takes only the pages asked for: the oldest leaf is split and only its tail dropped."""

    def __init__(self, num_blocks, block_size):
        super().__init__(num_blocks, block_size)
        tree = self.tree

        def evict(params):
            num_evicted = 0
            while num_evicted < params.num_tokens and tree.evictable_leaves:
                x = tree.evictable_leaves.oldest()
                need = params.num_tokens - num_evicted
                if len(x.key) > need:   # keep the head, with the leaf's age
                    head = tree._split_node(x.key, x, len(x.key) - need)
                    head.last_access_time = x.last_access_time
                tree.token_to_kv_pool_allocator.free_segment(x.value, start_pos=0)
                num_evicted += len(x.value)
                tree._delete_leaf(x)
            count("evict calls")
            count("tokens asked", params.num_tokens)
            count("tokens evicted", num_evicted)
            return EvictResult(num_tokens_evicted=num_evicted)

        self.tree.evict = evict


class SplitKeepsAgeTree(_RadixCache):
    """SGLang's tree but for one stamp: where a match or an insert ends inside a node, SGLang stamps
    the node before splitting it, so its tail (the part this request does not use) counts as
    touched now. Here the split comes first and only the
    head is stamped (when made, as in SGLang); the tail keeps its age."""

    def _match_prefix_helper(self, node, key):
        access_time = radix_cache.time.monotonic()
        node.last_access_time = access_time
        child_key = key.child_key(self.page_size)
        value = []
        while len(key) > 0 and child_key in node.children.keys():
            child = node.children[child_key]
            prefix_len = child.key.match(key, page_size=self.page_size)
            if prefix_len < len(child.key):
                count("splits whose tail kept its age")
                count("tokens in those tails", len(child.key) - prefix_len)
                new_node = self._split_node(child.key, child, prefix_len)   # stamped when made
                value.append(new_node.value)
                node = new_node
                break
            child.last_access_time = access_time
            value.append(child.value)
            node = child
            key = key[prefix_len:]
            if len(key):
                child_key = key.child_key(self.page_size)
        return value, node

    def _insert_helper(self, node, key, value, priority=0, inserted_len=0):
        priority = priority or 0
        access_time = radix_cache.time.monotonic()
        node.last_access_time = access_time
        node.priority = max(node.priority, priority)
        if len(key) == 0:
            return 0, node
        child_key = key.child_key(self.page_size)
        total_prefix_length = 0
        while len(key) > 0 and child_key in node.children.keys():
            node = node.children[child_key]
            prefix_len = node.key.match(key, page_size=self.page_size)
            total_prefix_length += prefix_len
            key = key[prefix_len:]
            value = value[prefix_len:]
            if prefix_len < len(node.key):
                count("splits whose tail kept its age")
                count("tokens in those tails", len(node.key) - prefix_len)
                new_node = self._split_node(node.key, node, prefix_len)
                new_node.priority = max(new_node.priority, priority)
                node = new_node   # stamped when made
            else:
                node.priority = max(node.priority, priority)
                node.last_access_time = access_time
            if total_prefix_length > inserted_len:
                self._inc_hit_count(node)
            if len(key):
                child_key = key.child_key(self.page_size)
        if len(key):
            new_node = TreeNode(priority=priority)
            new_node.parent = node
            new_node.key = key
            new_node.value = value
            if total_prefix_length + len(key) > inserted_len:
                self._inc_hit_count(new_node)
            node.children[child_key] = new_node
            self.evictable_size_ += len(key)
            self._update_leaf_status(node)
            self._update_leaf_status(new_node)
            node = new_node
        return total_prefix_length, node


class SplitKeepsAgePageEvictSglang(PageEvictSglang):
    """Both: a split's tail is not stamped, and evict takes only the pages asked for."""

    def __init__(self, num_blocks, block_size):
        super().__init__(num_blocks, block_size)
        self.tree.__class__ = SplitKeepsAgeTree


class SplitKeepsAgePromptOnlySglang(PromptOnlySglang):
    """Both: a split's tail is not stamped, and a finished request inserts its prompt only."""

    def __init__(self, num_blocks, block_size):
        super().__init__(num_blocks, block_size)
        self.tree.__class__ = SplitKeepsAgeTree


class UnstampedMatchTree(_RadixCache):
    """SGLang's tree whose match can be told not to stamp what it passes (the admission's match)."""
    stamp = True

    def _match_prefix_helper(self, node, key):
        if self.stamp:
            return super()._match_prefix_helper(node, key)
        ages = []
        walk, rest = node, key
        while len(rest) > 0 and rest.child_key(self.page_size) in walk.children:   # the path it will stamp
            walk = walk.children[rest.child_key(self.page_size)]
            ages.append((walk, walk.last_access_time))
            n = walk.key.match(rest, page_size=self.page_size)
            if n < len(walk.key):
                break
            rest = rest[n:]
        node_age = node.last_access_time
        value, last = super()._match_prefix_helper(node, key)
        node.last_access_time = node_age
        for n, age in ages:
            n.last_access_time = age
        return value, last


class FinishStampSglang(CountedSglang):
    """A cached page counts as touched when a request inserts through it (its checkpoint and its
    finish), not when the scheduler's match for an admission passes it."""

    def __init__(self, num_blocks, block_size):
        super().__init__(num_blocks, block_size)
        self.tree.__class__ = UnstampedMatchTree

    def can_allocate(self, seq):
        self.tree.stamp = False
        try:
            return super().can_allocate(seq)
        finally:
            self.tree.stamp = True


class SplitKeepsAgeSglang(CountedSglang):
    """sglang with SplitKeepsAgeTree: a split's tail is not stamped."""

    def __init__(self, num_blocks, block_size):
        super().__init__(num_blocks, block_size)
        self.tree.__class__ = SplitKeepsAgeTree


VARIANTS = {
    "nano-vllm": ("nano-vllm", CountedNano), "vllm": ("vllm", CountedVllm), "sglang": ("sglang", CountedSglang),
    "nano-vllm, prompt only": ("nano-vllm", PromptOnlyNano),
    "nano-vllm, unhashed blocks first": ("nano-vllm", CountedUnhashedFirst),
    "vllm, prompt only": ("vllm", PromptOnlyVllm),
    "sglang, prompt only": ("sglang", PromptOnlySglang),
    "sglang, page eviction": ("sglang", PageEvictSglang),
    "sglang, split tail keeps its age": ("sglang", SplitKeepsAgeSglang),
    "sglang, no stamp at admission": ("sglang", FinishStampSglang),
    "sglang, split tail keeps its age, page eviction": ("sglang", SplitKeepsAgePageEvictSglang),
    "sglang, prompt only, split tail keeps its age": ("sglang", SplitKeepsAgePromptOnlySglang),
}


def one(name: str, pool: int, variant: str, profile: bool, head: int | None = None):
    """In this (fresh) process: one replay under `variant` (of the trace's first `head` requests if
    given), printed as one JSON line."""
    policy, cls = VARIANTS[variant]
    registered = policies.REGISTRY[policy]
    policies.REGISTRY[policy] = Policy(policy, cls, registered.follows, registered.records)
    sample_pinned()
    trace = traffic.load(name)
    if head:
        trace = trace.head(head)
    start, start_cpu = time.perf_counter(), time.process_time()
    profiler = cProfile.Profile() if profile else None
    if profiler:
        profiler.enable()
    result = traffic.replay(trace, pool, 512, policy=policy)
    if profiler:
        profiler.disable()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    out = {"trace": name, "pool": pool, "variant": variant, "hit_rate": result.hit_rate,
           "cached": int(result.cached_tokens.sum()), "preemptions": int(result.preemptions.sum()),
           "refused": int(result.refused.sum()), "steps": result.steps, "wall_s": time.perf_counter() - start,
           "cpu_s": time.process_time() - start_cpu, "maxrss_mb": usage.ru_maxrss / 1024, "counts": COUNTS}
    print(json.dumps(out))
    if profiler:
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(15)
        print("\n```\n" + text.getvalue().strip() + "\n```")


def fresh(name: str, pool: int, variant: str, profile: bool = False) -> tuple[dict, str]:
    command = [sys.executable, __file__, "--one", name, str(pool), variant] + (["--profile"] if profile else [])
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode:
        raise RuntimeError(f"{' '.join(command)} failed:\n{run.stderr[-3000:]}")
    first, _, rest = run.stdout.partition("\n")
    return json.loads(first), rest


SAVED: Path | None = None   # --save: each replay's line kept, and not run again


def runs(jobs: list[tuple[str, int, str]], workers: int) -> dict:
    """Each job's replay in a fresh process, `workers` at a time (with --save, those saved are read back)."""
    saved = {}
    if SAVED is not None and SAVED.exists():
        for line in SAVED.read_text().splitlines():
            r = json.loads(line)
            saved[(r["trace"], r["pool"], r["variant"])] = r

    def job(key):
        if key in saved:
            return saved[key]
        r = fresh(*key)[0]
        if SAVED is not None:
            with SAVED.open("a") as f:
                f.write(json.dumps(r) + "\n")
        return r

    with ThreadPoolExecutor(max_workers=workers) as pool:
        done = list(pool.map(job, jobs))
    return {(r["trace"], r["pool"], r["variant"]): r for r in done}


# --- sections ---------------------------------------------------------------------------------------

def speed(profile: bool):
    print("## The whole conversation trace at 50M tokens under sglang (a fresh process, one core)\n")
    print("| replay | wall | CPU | peak memory (maxrss) | hit rate | steps | goal |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for p in [False] + ([True] if profile else []):
        r, rest = fresh("conversation", 50_000_000, "sglang", p)
        print(f"| conversation, 50M tokens, sglang{', profiled' if p else ''} | {r['wall_s']:.1f} s | {r['cpu_s']:.1f} s | "
              f"{r['maxrss_mb']:,.0f} MB | {r['hit_rate']:.2%} | {r['steps']:,} | <= 120 s, <= 2,048 MB |", flush=True)
        if rest.strip():
            print(rest.strip())
    print()


def versus(workers: int) -> dict:
    print("## sglang beside nano-vllm and vLLM at the same pools (block size 512, arrivals at their timestamps)\n")
    jobs = [(name, pool, v) for v in ("sglang", "nano-vllm", "vllm") for name in traffic.SHIPPED for pool in POOLS]
    got = runs(jobs, workers)
    print("| trace | pool tokens | curve | nano-vllm | vllm | sglang | sglang - nano-vllm | preemptions (n, v, s) | "
          "CPU s (n, v, s) | peak MB (n, v, s) |")
    print("|---|---:|---:|---:|---:|---:|---:|---|---|---|")
    for name in traffic.SHIPPED:
        c = curve(traffic.load(name), 512, 512)
        for pool in POOLS:
            n, v, s = (got[(name, pool, p)] for p in POLICIES)
            print(f"| {name} | {pool:,} | {c.hit_rate(pool):.2%} | {n['hit_rate']:.2%} | {v['hit_rate']:.2%} | "
                  f"{s['hit_rate']:.2%} | {(s['hit_rate'] - n['hit_rate']) * 100:+.2f} | "
                  f"{n['preemptions']}, {v['preemptions']}, {s['preemptions']} | "
                  f"{n['cpu_s']:.1f}, {v['cpu_s']:.1f}, {s['cpu_s']:.1f} | "
                  f"{n['maxrss_mb']:,.0f}, {v['maxrss_mb']:,.0f}, {s['maxrss_mb']:,.0f} |")
    print()
    counters(got, POOLS, POLICIES)
    return got


def counters(got: dict, pools: list[int], variants) -> None:
    print("What each replay did (counted by subclasses that decide as the registered policies):\n")
    print("| trace | pool tokens | replay | hit rate | evictions (blocks; sglang: calls) | evicted with a cached block "
          "after it | sglang: tokens asked / evicted | generated tokens cached | duplicate pages given up | "
          "mean tokens pinned by running requests |")
    print("|---|---:|---|---:|---:|---:|---|---:|---:|---:|")
    for name in traffic.SHIPPED:
        for pool in pools:
            for variant in variants:
                r = got.get((name, pool, variant))
                if r is None:
                    continue
                k = r["counts"]
                evictions = k.get("evicted blocks", k.get("evict calls", 0))
                asked = (f"{k.get('tokens asked', 0):,} / {k.get('tokens evicted', 0):,}" if "evict calls" in k
                         or variant.startswith("sglang") else "-")
                print(f"| {name} | {pool:,} | {variant} | {r['hit_rate']:.2%} | {evictions:,} | "
                      f"{k.get('evicted with a cached block after it', 0):,} | {asked} | "
                      f"{k.get('generated tokens cached', 0):,} | {k.get('duplicate pages given up', 0):,} | "
                      f"{k.get('pinned tokens (sum over steps)', 0) / max(k.get('steps sampled', 1), 1):,.0f} |")
    print()


def mechanisms(workers: int, got: dict):
    """got: replays already run (not run again)."""
    print("## One mechanism changed at a time (the tight pools)\n")
    variants = ["nano-vllm", "nano-vllm, unhashed blocks first", "nano-vllm, prompt only", "vllm", "sglang",
                "sglang, prompt only", "sglang, page eviction"]
    jobs = [(name, pool, v) for name in traffic.SHIPPED for pool in TIGHT for v in variants if (name, pool, v) not in got]
    counters(got | runs(jobs, workers), TIGHT, variants)


RECENCY = [3_000_000, 10_000_000]   # where sglang trails vllm on conversation beyond the mechanisms above


def recency(workers: int):
    print("## What counts as touched: sglang against vLLM's rules, conversation, 3M and 10M tokens\n")
    variants = ["vllm", "sglang", "sglang, split tail keeps its age", "sglang, no stamp at admission",
                "sglang, page eviction", "sglang, split tail keeps its age, page eviction",
                "vllm, prompt only", "sglang, prompt only", "sglang, prompt only, split tail keeps its age"]
    got = runs([("conversation", pool, v) for pool in RECENCY for v in variants], workers)
    print("| pool tokens | replay | hit rate | cached tokens | minus vllm's (tokens) | minus vllm's (points) | "
          "splits whose tail kept its age (their tokens) |")
    print("|---:|---|---:|---:|---:|---:|---|")
    for pool in RECENCY:
        base = got[("conversation", pool, "vllm")]
        for v in variants:
            r = got[("conversation", pool, v)]
            k = r["counts"]
            print(f"| {pool:,} | {v} | {r['hit_rate']:.3%} | {r['cached']:,} | {r['cached'] - base['cached']:+,} | "
                  f"{(r['hit_rate'] - base['hit_rate']) * 100:+.3f} | {k.get('splits whose tail kept its age', '-')} "
                  f"({k.get('tokens in those tails', '-')}) |")
    print()


def page_size_bound(trace, page_size: int) -> tuple[int, int]:
    """(prompt tokens SGLang's match finds, prompt tokens) with an unbounded tree and one request at
    a time: each matches its prompt but the last token (page-aligned), then inserts every token
    with KV (prompt and generated but the last), as a finished request does."""
    tree = RadixCache.create_simulated(page_size=page_size)
    hit = total = 0
    for i in range(len(trace)):
        prompt = prompt_tokens(trace.ids(i), int(trace.input_lengths[i]))
        out = output_length(int(trace.output_lengths[i]))
        key = array("q", prompt)
        hit += tree.match_prefix(MatchPrefixParams(key=RadixKey(key[:-1]))).device_prefix_len
        total += len(prompt)
        key.extend([OUTPUT_TOKEN] * (out - 1))
        tree.insert(InsertParams(key=RadixKey(key), value=range(len(key))))   # slots are not read here
    return hit, total


def page_size(head: int):
    print(f"## Page size and the last block: an unbounded tree, the first {head:,} requests of each trace\n")
    print("| trace | requests | nano-vllm's bound (curve, never the last block) | SGLang page 512 | SGLang page 1 | "
          "page 1 - page 512 | CPU s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in traffic.SHIPPED:
        trace = traffic.load(name).head(head)
        start = time.process_time()
        rates = {}
        for p in (512, 1):
            hit, total = page_size_bound(trace, p)
            rates[p] = hit / total
        print(f"| {name} | {len(trace):,} | {curve(trace, 512, 512).max_hit_rate:.2%} | {rates[512]:.2%} | "
              f"{rates[1]:.2%} | {(rates[1] - rates[512]) * 100:+.2f} | {time.process_time() - start:.1f} |", flush=True)
    print()


def sequential_hits(policy, num_blocks: int, block_size: int, requests: list) -> int:
    """Prompt tokens cached over requests served one at a time (each to its end before the next)."""
    sim = Simulator(num_blocks=num_blocks, block_size=block_size, policy=policy, record=False, rule="count")
    cached = []
    AdmissionWatch(sim.scheduler, lambda seq, n: cached.append(n))
    for prompt, max_tokens in requests:
        sim.add(prompt, max_tokens=max_tokens, ignore_eos=True)
        sim.run()
    return sum(cached)


def fewer_hits_in_a_bigger_pool(policy, rng: random.Random) -> tuple | None:
    """A random sequence of requests sharing prefixes, served one at a time at pools of 12 sizes
    from the smallest that fits: (pages, hits, pages + 1, hits) where one more page hit fewer."""
    block_size = rng.choice([1, 2])
    stems = [[rng.randint(1, 3) for _ in range(rng.randint(1, 6))] for _ in range(3)]
    requests = [(rng.choice(stems) + [rng.randint(1, 3) for _ in range(rng.randint(1, 4))], rng.randint(1, 3))
                for _ in range(rng.randint(2, 8))]
    smallest = max(-(-(len(p) + m) // block_size) for p, m in requests)
    before = None
    for n in range(smallest, smallest + 12):
        hits = sequential_hits(policy, n, block_size, requests)
        if before is not None and hits < before:
            return n - 1, before, n, hits
        before = hits
    return None


def inclusion(sequences: int):
    print(f"## Is it a stack algorithm? {sequences:,} random request sequences, one request at a time, 12 pool sizes each\n")
    print("A stack algorithm (Mattson et al. 1970) holds at every size what it holds at any smaller one, so its hits "
          "never fall as the pool grows; that is what lets one pass give every size.\n")
    print("| policy | sequences where one more page hit fewer | first seed | CPU s |")
    print("|---|---:|---|---:|")
    for name, policy in (("nano-vllm", "nano-vllm"), ("vllm", "vllm"), ("sglang", "sglang"),
                         ("sglang, page eviction", Policy("sglang", PageEvictSglang, "bench", records=False))):
        start, found, first = time.process_time(), 0, "-"
        for seed in range(sequences):
            hit = fewer_hits_in_a_bigger_pool(policy, random.Random(seed))
            if hit is not None:
                found += 1
                if first == "-":
                    first = f"{seed}: {hit[0]} pages hit {hit[1]} tokens, {hit[2]} pages {hit[3]}"
        print(f"| {name} | {found:,} | {first} | {time.process_time() - start:.1f} |", flush=True)
    print()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--speed", action="store_true")
    parser.add_argument("--profile", action="store_true", help="with --speed: a profiled run too (top 15)")
    parser.add_argument("--versus", action="store_true")
    parser.add_argument("--mechanisms", action="store_true")
    parser.add_argument("--page-size", action="store_true")
    parser.add_argument("--recency", action="store_true", help="the split's stamp: sglang against vllm, conversation 3M, 10M")
    parser.add_argument("--inclusion", type=int, nargs="?", const=500, metavar="N",
                        help="N random request sequences (default 500): does a bigger pool ever hit fewer?")
    parser.add_argument("--head", type=int, help="requests of each trace for --page-size (default 2000); "
                        "with --one, of its trace")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--save", metavar="FILE", help="keep each replay's result in FILE (JSON lines) and read back "
                        "those already there: a long run can stop and go on")
    parser.add_argument("--one", nargs=3, metavar=("TRACE", "POOL", "VARIANT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        return one(args.one[0], int(args.one[1]), args.one[2], args.profile, args.head)
    global SAVED
    SAVED = Path(args.save) if args.save else None
    if not (args.speed or args.versus or args.mechanisms or args.page_size or args.inclusion or args.recency):
        args.speed = args.versus = args.mechanisms = args.page_size = args.recency = True
        args.inclusion = 500
    if args.speed:
        speed(args.profile)
    if args.page_size:
        page_size(args.head or 2000)
    if args.inclusion:
        inclusion(args.inclusion)
    if args.mechanisms:   # first: the tight pools are the cheap replays
        mechanisms(args.jobs, {})
    if args.versus:
        versus(args.jobs)
    if args.recency:
        recency(args.jobs)


if __name__ == "__main__":
    main()
