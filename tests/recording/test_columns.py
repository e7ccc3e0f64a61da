"""A step's pool as arrays, read in any order of steps (each derived from a kept neighbour or read
whole), is the live engine's pool as it was after that step."""
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from blockviz import Simulator
from blockviz.recording import columns as columns_module
from blockviz.recording.columns import columns_at


def live_run(num_blocks: int, block_size: int, prompts: list[tuple[str, int]], history: int | None = None):
    """A run, and after each step what its BlockManager held: (ref, hashed, tokens, free queue, mapped)."""
    sim = Simulator(num_blocks=num_blocks, block_size=block_size, max_num_batched_tokens=12, history=history)
    bm = sim.scheduler.block_manager
    seen = {}

    def look():
        seen[sim.num_steps] = ([b.ref_count for b in bm.blocks], [b.hash != -1 for b in bm.blocks],
                               [bool(b.token_ids) for b in bm.blocks], list(bm.free_block_ids),
                               [b.hash != -1 and bm.hash_to_block_id.get(b.hash) == b.block_id for b in bm.blocks])
    for k, (prompt, max_tokens) in enumerate(prompts):
        try:
            sim.add(prompt, max_tokens=max_tokens)
        except ValueError:
            continue  # can never fit this pool
        if k % 2:
            sim.step()
            look()
    look()
    while not sim.is_finished():
        sim.step()
        look()
    return sim, seen


def agrees(sim: Simulator, step: int, seen: dict):
    snapshot = sim.snapshot(step)
    cols = snapshot.columns
    ref, hashed, tokens, free, mapped = seen[step]
    assert cols.ref.tolist() == ref and cols.hashed.tolist() == hashed and cols.tokens.tolist() == tokens
    assert cols.mapped.tolist() == mapped
    assert list(snapshot.free_block_ids) == free and cols.queue().tolist() == free
    assert cols.free.tolist() == [b in set(free) for b in range(len(ref))]


prompts = st.lists(st.tuples(st.text("ab", min_size=1, max_size=16), st.integers(1, 5)), min_size=1, max_size=8)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(num_blocks=st.integers(3, 16), block_size=st.integers(1, 3), reqs=prompts, near=st.integers(0, 3),
       mostly=st.sampled_from([1, 4, 1000]), data=st.data())
def test_columns_read_in_any_order_are_the_live_pool(num_blocks, block_size, reqs, near, mostly, data):
    sim, seen = live_run(num_blocks, block_size, reqs)
    order = data.draw(st.lists(st.sampled_from(sorted(seen)), min_size=1, max_size=30))
    with pytest.MonkeyPatch.context() as mp:  # bases near and far, few or many changes read again
        mp.setattr(columns_module, "NEAR", near)
        mp.setattr(columns_module, "MOSTLY", mostly)
        mp.setattr(columns_module, "KEPT", 3)
        history = sim.frames.build(sim.num_steps)
        history.columns_kept.clear()
        for step in order:
            sim.frames.cache.clear()  # a new Snapshot: its columns come from the History's kept ones
            agrees(sim, step, seen)
            assert len(history.columns_kept) <= 3


def test_a_bounded_history_derives_only_from_steps_it_still_holds():
    sim, seen = live_run(8, 2, [("abab" * 3, 4), ("ab" * 5, 3), ("ba" * 4, 5), ("abba", 2)] * 3, history=4)
    for step in range(sim.first_step, sim.num_steps + 1):
        agrees(sim, step, seen)
    history = sim.frames.build(sim.num_steps)
    assert all(s >= history.first_step for s in history.columns_kept)
    assert all(s > history.first_step for s in history.changed)


def test_a_step_next_to_a_kept_one_reads_only_the_blocks_written_in_between(monkeypatch):
    sim, _ = live_run(64, 2, [("ab" * 8, 4), ("ba" * 6, 3)])
    history = sim.frames.build(sim.num_steps)
    columns_at(history, sim.num_steps)
    read = []
    monkeypatch.setattr(columns_module, "read", lambda h, step, blocks, *arrays: read.append(blocks))
    monkeypatch.setattr(columns_module, "whole", lambda *a: pytest.fail("read whole"))
    columns_at(history, sim.num_steps - 1)
    assert read == [sorted(set(history.changed.get(sim.num_steps, ())))]



def test_a_huge_pool_keeps_fewer_steps_of_columns(monkeypatch):
    sim, seen = live_run(4096, 2, [("ab" * 8, 4), ("ba" * 6, 3)])
    history = sim.frames.build(sim.num_steps)
    history.columns_kept.clear()
    monkeypatch.setattr(columns_module, "KEPT_BYTES", 3 * 4096 * 27)  # three steps' worth
    for step in sorted(seen):
        columns_at(history, step)
    assert list(history.columns_kept) == sorted(seen)[-3:]
