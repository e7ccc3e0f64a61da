"""The six lifecycle states, each built by a real engine run and read back by the classifier."""
from hypothesis import HealthCheck, given, settings, strategies as st

from blockviz.engine.block_manager import BlockManager
from blockviz.sim import Simulator
from blockviz.states import BlockState, classify, classify_block, count_states


def ids(text: str) -> list[int]:
    return [ord(c) for c in text]


def check_pool_and_snapshot_agree(sim: Simulator):
    bm = sim.scheduler.block_manager
    assert classify(bm) == classify(sim.snapshot())
    # the whole-pool rule (state_codes, on arrays) is classify_block's, block by block
    for pool in (bm, sim.snapshot()):
        assert classify(pool) == [classify_block(pool, i) for i in range(len(bm.blocks))]
    counts = count_states(bm)
    assert sum(counts.values()) == len(bm.blocks)
    assert counts == count_states(sim.snapshot())


def test_six_states_from_a_real_run():
    sim = Simulator(num_blocks=12, block_size=4)
    bm = sim.scheduler.block_manager
    assert set(classify(bm)) == {BlockState.FREE}
    check_pool_and_snapshot_agree(sim)

    # Step 1: two identical prompts admitted in one step each get their own block for "abcd"
    # (nano-vllm #219); the later registration wins the map. A third request caches "mnop".
    a = sim.add("abcdefg", max_tokens=1)
    b = sim.add("abcdefg", max_tokens=1)
    e = sim.add("mnopq", max_tokens=1)
    sim.step()
    assert a.is_finished and b.is_finished and e.is_finished
    check_pool_and_snapshot_agree(sim)
    h_abcd = BlockManager.compute_hash(ids("abcd"))
    duplicates = [blk.block_id for blk in bm.blocks if blk.hash == h_abcd]
    assert len(duplicates) == 2
    owner = bm.hash_to_block_id[h_abcd]
    (stale,) = set(duplicates) - {owner}
    # the seed000_q2_stale scenario: same content, the map points to the other block, both freed
    assert classify_block(bm, stale) == BlockState.STALE_FREE
    assert classify_block(bm, owner) == BlockState.CACHED_FREE
    mnop = bm.hash_to_block_id[BlockManager.compute_hash(ids("mnop"))]
    assert classify_block(bm, mnop) == BlockState.CACHED_FREE

    # Step 2: C revives "abcd" and D, admitted in the same step, shares it; both fill more blocks.
    c = sim.add("abcdXYZW12", max_tokens=4)
    d = sim.add("abcdXYZWq", max_tokens=4)
    sim.step()
    check_pool_and_snapshot_agree(sim)
    assert c.block_table[0] == d.block_table[0] == owner
    assert bm.blocks[owner].ref_count == 2
    assert classify_block(bm, owner) == BlockState.SHARED
    assert classify_block(bm, c.block_table[1]) == BlockState.CACHED   # "XYZW": full, hashed, one owner
    assert classify_block(bm, d.block_table[1]) == BlockState.CACHED
    assert classify_block(bm, c.block_table[2]) == BlockState.FILLING  # "12" + the token being decoded
    assert classify_block(bm, d.block_table[2]) == BlockState.FILLING
    assert classify_block(bm, stale) == BlockState.STALE_FREE  # still shadowed, not yet reused
    assert classify_block(bm, mnop) == BlockState.CACHED_FREE
    never_used = [i for i in bm.free_block_ids if bm.blocks[i].hash == -1]
    assert never_used and all(classify_block(bm, i) == BlockState.FREE for i in never_used)
    assert set(classify(bm)) == set(BlockState)  # all six at once

    # an older snapshot keeps its own classification
    assert classify_block(sim.snapshot(1), owner) == BlockState.CACHED_FREE
    assert classify_block(sim.snapshot(1), stale) == BlockState.STALE_FREE


def test_reusing_a_stale_block_leaves_its_duplicate_reachable():
    sim = Simulator(num_blocks=4, block_size=2)
    bm = sim.scheduler.block_manager
    sim.add("ab", max_tokens=1)   # one block, never probed, always computed
    sim.add("abc", max_tokens=1)  # admitted in the same step: its own "ab" block, registered later
    sim.step()
    h = BlockManager.compute_hash(ids("ab"))
    owner = bm.hash_to_block_id[h]
    (stale,) = {blk.block_id for blk in bm.blocks if blk.hash == h} - {owner}
    free = list(bm.free_block_ids)
    assert free.index(stale) < free.index(owner)  # the first request released first
    # a request with new content that takes every free block up to and including the stale one
    sim.add("z" * 2 * (free.index(stale) + 1), max_tokens=1)
    sim.step()
    assert stale not in bm.free_block_ids or bm.blocks[stale].hash != h  # reused for other content
    assert bm.hash_to_block_id.get(h) == owner  # as in the seed000_q2_stale scenario: the duplicate's entry survives
    assert classify_block(bm, owner) == BlockState.CACHED_FREE


def test_filling_while_a_prompt_is_chunked():
    sim = Simulator(num_blocks=8, block_size=4, max_num_batched_tokens=6)
    bm = sim.scheduler.block_manager
    seq = sim.add("abcdefghij", max_tokens=2)  # 3 blocks, prefilled 6 + 4 tokens
    sim.step()
    assert seq.num_cached_tokens == 6 and seq in sim.scheduler.waiting
    states = [classify_block(bm, i) for i in seq.block_table]
    assert states == [BlockState.CACHED, BlockState.FILLING, BlockState.FILLING]
    check_pool_and_snapshot_agree(sim)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(num_blocks=st.integers(2, 12), block_size=st.integers(1, 3), budget=st.integers(2, 8),
       reqs=st.lists(st.tuples(st.text("ab", min_size=1, max_size=10), st.integers(1, 4)), min_size=1, max_size=6))
def test_the_whole_pool_rule_is_the_block_rule_at_every_step(num_blocks, block_size, budget, reqs):
    sim = Simulator(num_blocks=num_blocks, block_size=block_size, max_num_batched_tokens=budget)
    for k, (prompt, max_tokens) in enumerate(reqs):
        try:
            sim.add(prompt, max_tokens=max_tokens)
        except ValueError:
            continue
        if k % 2:
            sim.step()
            check_pool_and_snapshot_agree(sim)
    while not sim.is_finished():
        sim.step()
        check_pool_and_snapshot_agree(sim)
