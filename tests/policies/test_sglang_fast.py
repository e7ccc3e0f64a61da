"""The sglang policy's fast paths decide exactly as the plain code did: its tree's evict against
SGLang's (blockviz/radix/) on random operation streams, and the whole policy against the plain one
(sglang_reference.py) step by step on random workloads that share prefixes, evict and preempt."""
import random
from types import SimpleNamespace

from hypothesis import given, settings, strategies as st

from blockviz.hits import AdmissionWatch
from blockviz.policies.policy import Policy
from blockviz.policies.sglang import SglangBlockManager, _LeavesByAge, _RadixCache
from blockviz.sim import Simulator

from tests.policies.sglang_reference import PlainSglangBlockManager
from tests.radix import drive
from tests.radix.sides import BLOCKVIZ
from tests.radix.streams import random_stream

FAST = SimpleNamespace(**{**vars(BLOCKVIZ), "RadixCache": _RadixCache})
PLAIN = Policy("sglang-plain", PlainSglangBlockManager, "tests/policies/sglang_reference.py", records=False)


class LfuSglang(SglangBlockManager):
    eviction_policy = "lfu"


class PlainLfuSglang(PlainSglangBlockManager):
    eviction_policy = "lfu"


@settings(max_examples=300, deadline=None)
@given(st.randoms(use_true_random=False).map(lambda rng: random_stream(rng, max_ops=60)))
def test_the_fast_evict_frees_what_sglangs_evict_frees(stream):
    """Every operation's result and the whole tree after it (evicted segments in order included)."""
    assert drive.run(FAST, stream) == drive.run(BLOCKVIZ, stream)


def test_the_heap_is_used_where_priorities_only_grow():
    for policy, fast in (("lru", True), ("lfu", True), ("fifo", True), ("priority", True), ("mru", False),
                         ("filo", False)):
        tree = _RadixCache(BLOCKVIZ.CacheInitParams(disable=False, req_to_token_pool=None, token_to_kv_pool_allocator=None,
                                                    page_size=1, eviction_policy=policy))
        assert isinstance(tree.evictable_leaves, _LeavesByAge) is fast, policy


def seen(sim: Simulator, seqs: list) -> dict:
    """What the policy decided, as far as anything outside it can tell."""
    bm = sim.scheduler.block_manager
    tree = bm.tree
    order = sorted(tree.evictable_leaves, key=tree.eviction_strategy.get_priority)
    shape = drive.shape(tree)
    return {"tables": [(s.status, list(s.block_table), s.num_cached_tokens, len(s)) for s in seqs],
            "free": list(bm.free_block_ids), "used": sorted(bm.used_block_ids),
            "refs": [b.ref_count for b in bm.blocks], "tree_pages": sorted(bm.tree_pages),
            "tree": shape["tree"], "sizes": (shape["evictable"], shape["protected"], shape["total"]),
            "eviction_order": [drive.path(node, tree.root_node) for node in order]}


def workload(rng: random.Random) -> dict:
    """Prompts built from a few shared stems (so they share prefixes and part inside pages), arriving
    over the first steps, in a pool only a few requests fill."""
    block_size = rng.choice([1, 2, 3, 4, 8])
    stems = [[rng.randint(1, 3) for _ in range(rng.randint(0, 12))] for _ in range(3)]
    requests = []
    for _ in range(rng.randint(1, 10)):
        prompt = rng.choice(stems) + [rng.randint(1, 3) for _ in range(rng.randint(1, 8))]
        requests.append((rng.randint(0, 12), prompt, rng.randint(1, 8)))
    longest = max(len(p) + m for _, p, m in requests)
    num_blocks = -(-longest // block_size) + rng.randint(0, 6)
    return {"block_size": block_size, "num_blocks": num_blocks, "requests": requests,
            "budget": rng.randint(max(4, block_size), 40), "max_num_seqs": rng.randint(1, 4)}


def run(policy, w: dict, counts: dict | None = None) -> list[dict]:
    """What the policy decided after each step; counts (if given) gets the evictions and preemptions."""
    sim = Simulator(num_blocks=w["num_blocks"], block_size=w["block_size"], policy=policy, record=False, rule="count",
                    max_num_batched_tokens=w["budget"], max_num_seqs=w["max_num_seqs"])
    cached: list[tuple[int, int]] = []   # (the request's place in the workload, tokens cached), in admission order
    AdmissionWatch(sim.scheduler, lambda seq, n: cached.append((seqs.index(seq), n)))
    seqs: list = []
    if counts is not None:
        tree, scheduler = sim.scheduler.block_manager.tree, sim.scheduler
        evict, preempt = tree.evict, scheduler.preempt

        def counted_evict(params):
            result = evict(params)
            counts["evicted"] += result.num_tokens_evicted
            return result

        def counted_preempt(seq):
            counts["preempted"] += 1
            preempt(seq)

        tree.evict, scheduler.preempt = counted_evict, counted_preempt
    pending, out, step = sorted(w["requests"], key=lambda r: r[0]), [], 0
    while (pending or not sim.scheduler.is_finished()) and step < 400:
        while pending and pending[0][0] <= step:
            _, prompt, max_tokens = pending.pop(0)
            seqs.append(sim.add(prompt, max_tokens=max_tokens, ignore_eos=True))
        if not sim.scheduler.is_finished():
            sim.step()
        step += 1
        out.append(seen(sim, seqs) | {"cached": list(cached)})
    assert not pending and sim.scheduler.is_finished()
    return out


@settings(max_examples=150, deadline=None)
@given(st.randoms(use_true_random=False).map(workload))
def test_the_fast_policy_decides_as_the_plain_one(w):
    """After every step: each request's pages and cached tokens, the free queue's order, every
    page's holders, the tree (edges, pages, locks, hit counts) and its order of eviction."""
    assert run("sglang", w) == run(PLAIN, w)


@settings(max_examples=40, deadline=None)
@given(st.randoms(use_true_random=False).map(workload))
def test_the_fast_policy_decides_as_the_plain_one_under_lfu(w):
    fast, plain = Policy("lfu", LfuSglang, "-", records=False), Policy("plain-lfu", PlainLfuSglang, "-", records=False)
    assert run(fast, w) == run(plain, w)


def test_the_workloads_evict_and_preempt():
    """The random workloads above reach what the fast paths change: evictions and preemptions."""
    runs = []
    for i in range(100):
        counts = {"evicted": 0, "preempted": 0}
        run("sglang", workload(random.Random(i)), counts)
        runs.append(counts)
    assert sum(c["evicted"] > 0 for c in runs) >= 20, runs
    assert sum(c["preempted"] > 0 for c in runs) >= 10, runs
