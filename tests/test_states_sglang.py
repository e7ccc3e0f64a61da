"""The six states under a radix tree (policy "sglang"): at every step of random workloads, the pool
view's state of each page, read from the recording, says what the live engine's
SglangBlockManager.page_states() says (free / used by a running request / cached in the tree only),
tells a request's page in the tree (cached, shared) from one not in it yet (filling), and never says
stale-free; a live pool and the recorded step classify alike, block by block and whole."""
from hypothesis import given, settings, strategies as st

from blockviz.sim import Simulator
from blockviz.states import BlockState, classify, classify_block, count_states, state_codes, tree_pages
from blockviz.views.render_pool import pool_picture

from tests.recording.test_radix_recording import arrive_and_step, evicting_by, workloads

USED = {BlockState.FILLING, BlockState.CACHED, BlockState.SHARED}


def partition(states: list[BlockState]) -> dict[str, set[int]]:
    """page_states()'s three kinds, from the six states."""
    return {"free": {b for b, s in enumerate(states) if s is BlockState.FREE},
            "used": {b for b, s in enumerate(states) if s in USED},
            "cached": {b for b, s in enumerate(states) if s is BlockState.CACHED_FREE}}


def live_run(arrivals, num_blocks: int, block_size: int, budget: int, eviction: str):
    """Each request arrives at its step; after every step, what the live engine says of its pages."""
    longest = max(len(p) + n for _, p, n in arrivals)
    sim = Simulator(num_blocks=max(num_blocks, -(-longest // block_size)), block_size=block_size,
                    policy=evicting_by(eviction), rule="count", max_num_batched_tokens=budget)
    bm = sim.scheduler.block_manager

    def state() -> dict:
        return {"pages": bm.page_states(), "tree": set(bm.tree_pages), "states": classify(bm),
                "ref": [b.ref_count for b in bm.blocks]}

    return sim, arrive_and_step(sim, arrivals, state)


@settings(max_examples=200, deadline=None)
@given(workloads, st.integers(1, 4), st.integers(3, 20), st.integers(1, 30),
       st.sampled_from(["lru", "lru", "lfu", "fifo", "mru"]))
def test_the_pool_view_classifies_every_page_as_the_live_engine_does_at_every_step(
        arrivals, block_size, num_blocks, budget, eviction):
    sim, live = live_run(arrivals, num_blocks, block_size, budget, eviction)
    for step in [*range(sim.last_step, -1, -1), *range(sim.last_step + 1)]:   # back from the end, then forward
        snapshot, now = sim.snapshot(step), live[step]
        assert snapshot.tree_pages == now["tree"], f"step {step}"
        states = classify(snapshot)
        assert states == now["states"], f"step {step}"   # the live pool, classified the same way
        assert partition(states) == now["pages"], f"step {step}"
        assert BlockState.STALE_FREE not in states
        for b, s in enumerate(states):
            if s in USED:   # in the tree: cached or shared; not yet: filling (its own, ref 1)
                assert (s is not BlockState.FILLING) == (b in now["tree"]), f"step {step}, page {b}"
                assert (s is BlockState.SHARED) == (now["ref"][b] >= 2), f"step {step}, page {b}"
        assert states == [classify_block(snapshot, b) for b in range(snapshot.num_blocks)]
        # what the pool view draws: each cell's state (pools this small draw every block alone)
        cells = pool_picture(snapshot, sim.events(step)).cells
        assert [cell.attrs["data-state"] for cell in cells] == [s.value for s in states], f"step {step}"


def test_a_finished_requests_pages_stay_cached_free_in_the_tree_until_evicted():
    sim = Simulator(num_blocks=6, block_size=2, policy="sglang", rule="count")
    bm = sim.scheduler.block_manager
    assert tree_pages(bm) == set() and tree_pages(sim.snapshot()) == frozenset()
    a = sim.add([1, 2, 3, 4, 5], max_tokens=3, ignore_eos=True)
    sim.step()   # prefill: its first two pages are in the tree (checkpoint), the last one filling
    assert [classify_block(bm, p) for p in a.block_table] == [BlockState.CACHED, BlockState.CACHED, BlockState.FILLING]
    b = sim.add([1, 2, 3, 4, 9], max_tokens=3, ignore_eos=True)
    sim.step()   # b shares the two pages the tree gave it
    assert [classify_block(bm, p) for p in b.block_table[:2]] == [BlockState.SHARED, BlockState.SHARED]
    sim.run()
    counts = count_states(bm)
    assert counts[BlockState.CACHED_FREE] == len(bm.tree_pages) > 0   # every page of the tree, held by none
    assert counts[BlockState.CACHED_FREE] + counts[BlockState.FREE] == len(bm.blocks)
    assert (state_codes(bm) == state_codes(sim.snapshot())).all()
    # a pool of nano-vllm's BlockManager has no tree: the hash chain's rule
    assert tree_pages(Simulator(num_blocks=4, block_size=2).scheduler.block_manager) is None
