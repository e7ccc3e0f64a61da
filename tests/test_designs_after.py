"""compare: the same requests through both designs, and each design's cache as it stood after each
request: a still copy of SGLang's tree that draws as the tree did, its pages as runs, the path of
the request's tokens, nano-vllm's recording at the step the request finished."""
import math
import random
from array import array

import pytest
from hypothesis import given, settings, strategies as st

from blockviz.designs import side_by_side
from blockviz.designs_after import PAGE_STATES, compare, copy_tree, page_runs, tree_path
from blockviz.radix.base_prefix_cache import EvictParams, InsertParams
from blockviz.radix.radix_cache import RadixCache, RadixKey, TreeNode
from blockviz.sim import Simulator
from blockviz.views.render_radix import render_radix

PROMPTS = ["the cat sat on the mat", "the cat sat on the hat", "a dog ran far away from here",
           "the cat sat on the mat"]

operations = st.lists(st.one_of(
    st.tuples(st.just("insert"), st.lists(st.integers(0, 3), min_size=1, max_size=12)),
    st.tuples(st.just("evict"), st.integers(1, 8)),
    st.tuples(st.just("lock"), st.integers(0, 50)),
    st.tuples(st.just("unlock"), st.integers(0, 50))), max_size=25)


class Allocator:   # where evicted values go: nowhere
    def free_segment(self, values, start_pos=0):
        pass


def nodes(tree: RadixCache) -> list[TreeNode]:
    out, stack = [], list(tree.root_node.children.values())
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(node.children.values())
    return out


def apply(tree: RadixCache, op, locked: list[TreeNode]):
    kind, arg = op
    if kind == "insert":
        tree.insert(InsertParams(key=RadixKey(array("q", arg)), value=array("q", range(len(arg)))))
    elif kind == "evict":
        tree.evict(EvictParams(num_tokens=arg))
    elif kind == "lock" and nodes(tree):
        node = nodes(tree)[arg % len(nodes(tree))]
        tree.inc_lock_ref(node)
        locked.append(node)
    elif kind == "unlock" and locked:
        tree.dec_lock_ref(locked.pop(arg % len(locked)))


@settings(max_examples=60, deadline=None)
@given(operations, operations, st.sampled_from(["lru", "lfu", "fifo"]))
def test_a_copy_draws_as_the_tree_did_whatever_the_tree_does_next(before, after, policy):
    tree, locked = RadixCache.create_simulated(mock_allocator=Allocator(), eviction_policy=policy), []
    for op in before:
        apply(tree, op, locked)
    counter = TreeNode.counter
    copy = copy_tree(tree)
    assert TreeNode.counter == counter   # copying draws no node id
    picture = render_radix(tree)
    assert render_radix(copy) == picture
    assert copy.evictable_size() == tree.evictable_size() and copy.protected_size() == tree.protected_size()
    for op in after:
        apply(tree, op, locked)
    assert render_radix(copy) == picture


def test_page_runs_hold_the_page_states():
    sim = Simulator(num_blocks=12, block_size=4, policy="sglang", record=False)
    bm = sim.scheduler.block_manager
    sim.add("the cat sat on the mat", max_tokens=4)
    sim.run()                         # its pages stay in the tree: cached
    sim.add("a dog ran far", max_tokens=8)
    sim.step()                        # running: used
    states = bm.page_states()
    runs = page_runs(states, 12)
    got = {state: set() for state in PAGE_STATES}
    for first, end, code in zip(runs.starts, runs.ends, runs.codes):
        got[PAGE_STATES[code]] |= set(range(first, end))
    assert got == states and all(states[s] for s in ("free", "used", "cached"))   # every kind of page here
    assert all(runs.codes[1:] != runs.codes[:-1])   # runs are maximal
    assert runs.counts() == {state: len(pages) for state, pages in states.items()}


def test_the_path_follows_whole_edges_and_reads_only():
    tree = RadixCache.create_simulated()
    for tokens in ([1, 2, 3, 4, 5], [1, 2, 3, 9], [7, 7]):
        tree.insert(InsertParams(key=RadixKey(array("q", tokens)), value=array("q", range(len(tokens)))))
    picture = render_radix(tree)
    path = tree_path(tree, [1, 2, 3, 4, 5, 6])
    assert [(first, end) for _, first, end in path] == [(0, 3), (3, 5)]
    assert tree_path(tree, [1, 2]) == [] and tree_path(tree, [8]) == []   # part of an edge is no node of it
    assert render_radix(tree) == picture


def test_compare_serves_as_side_by_side_and_keeps_each_request_after():
    comparison = compare(PROMPTS, num_blocks=12, block_size=4, labels=list("abcd"))
    assert comparison.served == side_by_side(PROMPTS, num_blocks=12, block_size=4)
    sim = comparison.nano
    for i, step in enumerate(comparison.nano_steps):
        snapshot = sim.snapshot(step)
        seq_id = list(sim.seqs)[i]
        assert snapshot.seqs[seq_id].status == "finished" != sim.snapshot(step - 1).seqs[seq_id].status
        served = comparison.served["nano-vllm"][i]
        assert len(served.blocks) == math.ceil(sim.seqs[seq_id].num_tokens / 4)
    for i, after in enumerate(comparison.sglang):
        ends = [end for _, _, end in after.path]
        with_kv = list(sim.seqs.values())[i].num_tokens - 1   # the last token sampled has no KV yet
        assert ends == sorted(ends) and ends[-1] == with_kv // 4 * 4   # all inserted, page-aligned
        assert after.pages.counts()["used"] == 0   # served alone: nothing runs after a request
    assert comparison.labels == list("abcd")
    with pytest.raises(ValueError, match="one per prompt"):
        compare(PROMPTS, labels=["a"])


def test_differs_is_the_span_one_design_hit_and_the_other_recomputed():
    rng = random.Random(27)   # prompts over "ab" sharing prefixes, a pool that evicts: somewhere the designs part
    base = ["".join(rng.choice("ab") for _ in range(rng.randint(6, 14))) for _ in range(2)]
    prompts = [rng.choice(base) + "".join(rng.choice("ab") for _ in range(rng.randint(0, 6))) for _ in range(5)]
    comparison = compare(prompts, num_blocks=10, block_size=4)
    parted = 0
    for i in range(len(comparison)):
        lo, hi = comparison.differs(i)
        hits = sorted(comparison.served[d][i].hit for d in comparison.served)
        assert (lo, hi) == tuple(hits)
        parted += lo < hi
    assert parted > 0
