"""compare: the same requests through both designs, and each design's cache as it stood after each
request, read from each design's recording at the step the request finished: SGLang's tree that
draws as the live tree did then, its pages as runs, the path of the request's tokens; nano-vllm's pool."""
import math
import random
import re
from array import array

import pytest
from hypothesis import given, settings, strategies as st

from blockviz.designs import serve, side_by_side
from blockviz.designs_after import PAGE_STATES, compare, page_codes, page_runs, recorded_page_codes, tree_path
from blockviz.radix.base_prefix_cache import InsertParams
from blockviz.radix.radix_cache import RadixCache, RadixKey
from blockviz.sim import Simulator
from blockviz.views.render_radix import render_radix

PROMPTS = ["the cat sat on the mat", "the cat sat on the hat", "a dog ran far away from here",
           "the cat sat on the mat"]

def unnamed(svg: str) -> str:
    """The picture without node ids (the live tree's are TreeNode.id, the recording's its own numbers)."""
    return re.sub(r' data-node="\d+"', "", svg)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.text("ab ", min_size=1, max_size=24), min_size=1, max_size=6), st.integers(4, 12))
def test_sglangs_cache_after_each_request_is_the_live_one_then(prompts, num_blocks):
    """Read from the recording: the tree draws as the live tree did when the request finished, the
    pages are the live page_states, the path the live tree's."""
    prompts = [p for p in prompts if len(p) + 4 <= num_blocks * 2]
    live = []

    def after(sim, seq):
        bm = sim.scheduler.block_manager
        live.append((unnamed(render_radix(bm.tree)), page_runs(bm.page_states(), num_blocks).counts(),
                     [(first, end) for _, first, end in tree_path(bm.tree, seq.token_ids)]))
    serve(prompts, "sglang", num_blocks, 2, 4, after=after)
    comparison = compare(prompts, num_blocks=num_blocks, block_size=2, max_tokens=4)
    assert len(comparison.sglang) == len(live) == len(prompts)
    for (tree, counts, path), got in zip(live, comparison.sglang):
        assert unnamed(render_radix(got.tree)) == tree and got.pages.counts() == counts
        assert [(first, end) for _, first, end in got.path] == path
        assert {node for node, _, _ in got.path} <= set(got.tree.nodes)


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


def test_the_pages_read_from_a_recorded_step_are_the_live_page_states():
    sim = Simulator(num_blocks=12, block_size=4, policy="sglang")
    bm = sim.scheduler.block_manager
    sim.add("the cat sat on the mat", max_tokens=4)
    sim.add("the cat sat on a hat", max_tokens=6)
    live = [bm.page_states()]
    while not sim.scheduler.is_finished():
        sim.step()
        live.append(bm.page_states())
    for step, pages in enumerate(live):
        assert recorded_page_codes(sim.snapshot(step)).tolist() == page_codes(pages, 12).tolist(), f"step {step}"
    assert any(pages["used"] and pages["cached"] for pages in live)


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
