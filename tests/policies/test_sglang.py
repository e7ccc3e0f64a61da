"""The "sglang" policy: SGLang's radix tree deciding nano-vllm's pages, checked on random workloads."""
from array import array

import pytest
from hypothesis import given, settings, strategies as st

from blockviz.hits import AdmissionWatch
from blockviz.policies.sglang import SglangBlockManager
from blockviz.radix.base_prefix_cache import MatchPrefixParams
from blockviz.radix.radix_cache import RadixKey
from blockviz.sim import Simulator


def engine(num_blocks: int, block_size: int, policy: str = "sglang", **options) -> tuple[Simulator, dict[int, list[int]]]:
    sim = Simulator(num_blocks=num_blocks, block_size=block_size, policy=policy, record=False, rule="count", **options)
    cached: dict[int, list[int]] = {}
    AdmissionWatch(sim.scheduler, lambda seq, n: cached.setdefault(seq.seq_id, []).append(n))
    return sim, cached


def tree_pages(bm: SglangBlockManager) -> list[int]:
    values = bm.tree.all_values_flatten()
    return [v // bm.block_size for v in values[::bm.block_size]]


def check_invariants(sim: Simulator):
    bm: SglangBlockManager = sim.scheduler.block_manager
    n = len(bm.blocks)
    free = list(bm.free_block_ids)
    assert len(free) == len(set(free)), "a page is free twice"
    assert set(free).isdisjoint(bm.used_block_ids) and len(free) + len(bm.used_block_ids) == n
    states = bm.page_states()
    assert sorted(p for s in states.values() for p in s) == list(range(n)), "free + used + cached is not the pool"
    in_tree = tree_pages(bm)
    assert len(in_tree) == len(set(in_tree)) and set(in_tree) == bm.tree_pages, "the tree holds a page twice"
    assert bm.tree_pages.isdisjoint(free)
    assert states["cached"] <= bm.tree_pages, "a page held by nobody is neither free nor in the tree"
    holders: dict[int, int] = {}
    live = [s for s in list(sim.scheduler.running) + list(sim.scheduler.waiting) if s.block_table]
    for seq in live:
        assert len(set(seq.block_table)) == len(seq.block_table)
        for page in seq.block_table:
            assert page not in free, "a running request's page is free"
            holders[page] = holders.get(page, 0) + 1
        node = bm.last_node[seq.seq_id]   # its locked node: still in the tree, locked
        assert node.lock_ref > 0
        while node is not bm.tree.root_node:
            assert node.parent.children.get(node.key.child_key(bm.block_size)) is node, "a locked node was evicted"
            node = node.parent
        protected = bm.protected[seq.seq_id] // bm.block_size
        path = bm.tree.path_device_indices(bm.last_node[seq.seq_id])
        assert [v // bm.block_size for v in path[::bm.block_size]] == seq.block_table[:protected]
    for page, count in holders.items():
        assert bm.blocks[page].ref_count == count
        assert count == 1 or page in bm.tree_pages, "two requests share a page the tree does not hold"
    assert sum(b.ref_count for b in bm.blocks) == sum(holders.values())


prompts = st.lists(st.lists(st.integers(0, 2), min_size=1, max_size=14), min_size=1, max_size=8)


@settings(max_examples=60, deadline=None)
@given(prompts, st.integers(1, 4), st.integers(4, 24), st.integers(1, 6), st.integers(3, 40))
def test_random_workloads_keep_the_pool_and_the_tree_true(batch, block_size, num_blocks, max_tokens, budget):
    longest = max(len(p) for p in batch) + max_tokens
    num_blocks = max(num_blocks, -(-longest // block_size))
    sim, _ = engine(num_blocks, block_size, max_num_batched_tokens=max(budget, 1))
    for p in batch:
        sim.add(p, max_tokens=max_tokens, ignore_eos=True)
    steps = 0
    while not sim.scheduler.is_finished() and steps < 500:
        sim.step()
        steps += 1
        check_invariants(sim)
    assert sim.scheduler.is_finished()
    bm = sim.scheduler.block_manager
    assert bm.page_states()["used"] == set() and bm.tree.protected_size() == 0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=20), st.integers(1, 4), st.integers(1, 6))
def test_a_finished_request_is_hit_by_its_own_tokens_up_to_the_page(prompt, block_size, max_tokens):
    sim, cached = engine(64, block_size)
    first = sim.add(prompt, max_tokens=max_tokens, ignore_eos=True)
    sim.run()
    again = sim.add(first.token_ids, max_tokens=1, ignore_eos=True)
    sim.run()
    with_kv = len(first.token_ids) - 1   # the last generated token was never computed
    assert cached[again.seq_id] == [with_kv // block_size * block_size]
    check_invariants(sim)


def test_generated_tokens_and_a_partial_page_hit_at_page_size_one():
    """SGLang's default page_size 1 against nano-vllm's blocks of 4, the same 28 token slots: a
    follow-up that quotes a finished request (prompt and output) hits every token with KV under
    sglang; nano-vllm hits only whole blocks and never the prompt's last block."""
    hits = {}
    for policy, block_size in (("nano-vllm", 4), ("sglang", 1)):
        sim, cached = engine(28 // block_size, block_size, policy)
        a = sim.add([1, 2, 3, 4], max_tokens=3, ignore_eos=True)
        sim.run()
        c = sim.add(a.token_ids, max_tokens=1, ignore_eos=True)   # 4 prompt + 3 generated tokens
        sim.run()
        hits[policy] = cached[c.seq_id][0]
    assert hits["sglang"] == 6                 # all but the last generated token, which has no KV
    assert hits["nano-vllm"] == 4, hits        # the block [1, 2, 3, 4]; [g1, g2, g3] is a partial last block


def test_it_is_recorded_without_keyframes_and_a_policy_that_is_not_is_refused():
    from dataclasses import replace
    from blockviz.policies import get
    sim = Simulator(num_blocks=8, block_size=2, policy="sglang")   # records by default (tests/recording/test_radix_recording.py)
    sim.add([1, 2, 3], max_tokens=2)
    sim.run()
    assert sim.snapshot(sim.last_step).tree is not None and get("sglang").keyframes is False
    with pytest.raises(ValueError, match="'sglang' policy cannot be recorded"):
        Simulator(policy=replace(get("sglang"), records=False))


def test_a_shipped_trace_replays_under_sglang():
    from blockviz import traffic
    trace = traffic.load("conversation").head(20)
    runs = {p: traffic.replay(trace, 65536, policy=p) for p in ("nano-vllm", "sglang")}
    possible = trace.theoretical_hit_rate(traffic.HASH_BLOCK)
    assert 0 < runs["sglang"].hit_rate <= possible
    assert runs["sglang"].policy == "sglang" and "sglang" in str(runs["sglang"])


def test_a_preempted_request_gives_back_its_pages_without_inserting_and_runs_again():
    sim, cached = engine(6, 1)
    bm = sim.scheduler.block_manager
    preempted = []   # (seq id, tokens matched in the tree right after its release)
    preempt = sim.scheduler.preempt

    def watched(seq):
        preempt(seq)
        key = RadixKey(array("q", seq.token_ids))
        preempted.append((seq.seq_id, bm.tree.match_prefix(MatchPrefixParams(key=key)).device_prefix_len))

    sim.scheduler.preempt = watched
    a = sim.add([1, 2], max_tokens=4, ignore_eos=True)   # count rule: 3, 4, 5, 6
    b = sim.add([3, 4], max_tokens=4, ignore_eos=True)   # 5, 6, 7, 8: no prefix shared with a
    while not sim.scheduler.is_finished():
        sim.step()
        check_invariants(sim)
    assert preempted, "the pool of 6 pages must preempt one of two requests growing to 5 tokens"
    seq_id, matched = preempted[0]
    assert matched == 2   # its prompt, checkpointed after prefill; its output was not inserted
    # admitted again; by then the survivor, growing, evicted that unlocked prompt: one leaf of 2 tokens,
    # evicted whole though it needed one page
    assert cached[seq_id] == [0, 0]
    assert a.num_completion_tokens == b.num_completion_tokens == 4
