"""Large pools (a GPU sizes them from free memory) fold runs of idle blocks of one free-queue state
into one cell; pools of at most FOLD_ABOVE blocks are drawn block by block."""
import re

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from blockviz import Simulator
from blockviz.states import BlockState, classify, classify_block
from blockviz.text import grouped
from blockviz.views import render_pool as rp
from blockviz.views.render_pool import PoolPicture, pool_picture, render_pool, touched_blocks

from test_pool_patch import requests, run


def busy(num_blocks: int) -> Simulator:
    sim = Simulator(num_blocks=num_blocks, block_size=4, max_num_batched_tokens=2048)
    for i in range(num_blocks // 8):
        sim.add(f"request {i % 7} asks {i:05d} things", max_tokens=6)
    sim.run(4)
    return sim


@pytest.mark.parametrize("num_blocks", [300, 1024, rp.FOLD_ABOVE])
def test_pools_up_to_the_threshold_draw_every_block_alone(num_blocks):
    """Checked against the renders of the code before folding (byte for byte) when it came in; what
    stays true: one cell per block, in block order, none folded."""
    sim = busy(num_blocks)
    for step in range(sim.last_step + 1):
        picture = pool_picture(sim.snapshot(step), sim.events(step), selected=5)
        assert [cell.key for cell in picture.cells] == list(range(num_blocks))
        assert not any("data-last-block-id" in cell.attrs for cell in picture.cells)


def unfolded(picture: PoolPicture) -> list[tuple[int, dict[str, str]]]:
    """(block id, attributes of the cell that shows it) for every block, in the picture's order."""
    return [(block_id, cell.attrs) for cell in picture.cells
            for block_id in range(cell.key, int(cell.attrs.get("data-last-block-id", cell.key)) + 1)]


def check_folds(sim: Simulator, step: int, selected: int | None = None, compact: bool | None = None):
    """Every block is shown once, in order, with its classifier state, and the legend counts every
    block of each state; a folded run holds blocks of one state, untouched, not selected, after the
    queue head: in a compact pool free blocks without tokens or cached-free blocks, else free blocks
    without tokens in the same order in the free queue."""
    snapshot, events = sim.snapshot(step), sim.events(step)
    picture = pool_picture(snapshot, events, selected=selected, compact=compact)
    compact = snapshot.num_blocks > rp.COMPACT_ABOVE if compact is None else compact
    shown = unfolded(picture)
    assert [block_id for block_id, _ in shown] == list(range(snapshot.num_blocks))
    states = [classify_block(snapshot, b) for b in range(snapshot.num_blocks)]  # the block rule, one by one
    touched = touched_blocks(events)
    queue = {block_id: i for i, block_id in enumerate(snapshot.free_block_ids)}
    for block_id, attrs in shown:
        assert attrs["data-state"] == states[block_id].value
        assert ("data-queue" in attrs) == (not compact)
        first = int(attrs["data-block-id"])
        if "data-last-block-id" not in attrs:
            if not compact:
                assert attrs["data-queue"] == str(queue.get(block_id, -1))
            continue
        state = states[first]
        assert states[block_id] is state and block_id not in touched and block_id != selected
        # after the queue head; or, under a radix tree, a page the tree caches (out of the queue)
        assert queue[block_id] > 0 if block_id in queue else state is BlockState.CACHED_FREE
        assert (block_id in queue) == (snapshot.tree_pages is None or state is BlockState.FREE)
        if state is BlockState.FREE:
            assert not snapshot.blocks[block_id].token_ids
        else:
            assert compact and state is BlockState.CACHED_FREE
        if not compact:
            assert queue[block_id] == queue[first] + block_id - first and attrs["data-queue"] == str(queue[first])
        last = int(attrs["data-last-block-id"])
        assert last - first + 1 >= rp.FOLD_MIN and f"{grouped(first)}–{grouped(last)}" in attrs["aria-label"]
    for cell in picture.cells:  # only a lone block is outlined: the selected one is never folded
        assert ('class="bv-sel"' in cell.body) == (cell.key == selected)
    legend = picture.legend
    for state in BlockState:
        assert f"{state.value} ({states.count(state)}): " in legend
    return picture


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(num_blocks=st.integers(4, 40), block_size=st.integers(1, 4), reqs=requests, fold_min=st.integers(2, 5),
       compact=st.booleans(), data=st.data())
def test_folded_runs_hide_only_idle_blocks_that_say_no_more_than_the_run(num_blocks, block_size, reqs, fold_min,
                                                                         compact, data):
    sim = run(num_blocks, block_size, reqs)
    with pytest.MonkeyPatch.context() as mp:  # small pools, folded like large ones
        mp.setattr(rp, "FOLD_ABOVE", 0)
        mp.setattr(rp, "FOLD_MIN", fold_min)
        for step in range(sim.last_step + 1):
            check_folds(sim, step, data.draw(st.none() | st.integers(0, num_blocks - 1)), compact)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(num_blocks=st.integers(4, 40), block_size=st.integers(1, 4), reqs=requests, fold_min=st.integers(2, 5),
       compact=st.booleans(), data=st.data())
def test_under_a_radix_tree_the_cached_pages_fold_as_cached_free_in_a_compact_pool(num_blocks, block_size, reqs,
                                                                                   fold_min, compact, data):
    """Policy "sglang": a page the tree caches with no request holding it is cached-free (out of the
    free queue, with no place in it), and folds with its neighbours in a compact pool."""
    sim = run(num_blocks, block_size, reqs, policy="sglang")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rp, "FOLD_ABOVE", 0)
        mp.setattr(rp, "FOLD_MIN", fold_min)
        for step in range(sim.last_step + 1):
            check_folds(sim, step, data.draw(st.none() | st.integers(0, num_blocks - 1)), compact)


def test_a_gpu_sized_pool_folds_its_idle_blocks_at_every_step(huge):
    for step in range(huge.last_step + 1):
        picture = check_folds(huge, step, selected=5)
        assert any("data-last-block-id" in cell.attrs for cell in picture.cells)
        assert len(picture.cells) < 200


def test_a_pool_full_of_cache_folds_its_cached_free_runs():
    """After its requests finish, a GPU-sized pool is mostly cached-free: those runs fold too, each
    cell saying its state, and the legend still counts every block."""
    sim = Simulator(num_blocks=4096, block_size=2)
    for i in range(30):  # one after another: shared prefixes hit, nothing goes stale
        sim.add(f"request {i:03d}: " + f"{i:03d} and " * 20, max_tokens=2)
        sim.run()
    snapshot = sim.snapshot(sim.last_step)
    states = classify(snapshot)
    assert states.count(BlockState.CACHED_FREE) > 1000
    picture = check_folds(sim, sim.last_step)
    runs = [cell for cell in picture.cells if "data-last-block-id" in cell.attrs]
    cached = [cell for cell in runs if cell.attrs["data-state"] == "cached-free"]
    assert cached and len(picture.cells) < 200
    assert "cached-free (ref 0 but content kept; a prefix hit revives it)" in cached[0].attrs["aria-label"]
    zh = pool_picture(snapshot, lang="zh")
    assert any("块可复用缓存（" in cell.attrs["aria-label"] for cell in zh.cells if "data-last-block-id" in cell.attrs)
    first = int(cached[0].attrs["data-block-id"])  # a click on a run: its first block alone, outlined
    alone = check_folds(sim, sim.last_step, selected=first)
    assert [cell.key for cell in alone.cells if cell.key == first and "data-last-block-id" not in cell.attrs] == [first]
    assert first + 1 in [cell.key for cell in alone.cells]


def test_the_header_still_counts_the_whole_pool_and_the_legend_explains_a_fold(huge):
    svg = render_pool(huge.snapshot(2), huge.events(2), lang="zh")
    assert "共65536块" in svg and "整行一格" in svg
    en = render_pool(huge.snapshot(2), huge.events(2))
    assert f"65536 blocks, {len(huge.snapshot(2).free_block_ids)} in the free queue" in en
    assert re.search(r"blocks [\d ]+–65 535 · [\d ]+ free \(in the free queue, no hash: nothing to reuse\)", en)
    assert "all free or all cached-free" in en


def test_a_pool_full_of_a_radix_trees_cache_folds_it_and_says_what_it_is():
    """Policy "sglang": after its requests finish, the tree keeps their pages (held by none, out of
    the free queue): cached-free runs that fold, each saying what cached-free means for a page."""
    sim = Simulator(num_blocks=4096, block_size=2, policy="sglang")
    for i in range(30):
        sim.add(f"request {i:03d}: " + f"{i:03d} and " * 20, max_tokens=2)
        sim.run()
    snapshot = sim.snapshot(sim.last_step)
    assert classify(snapshot).count(BlockState.CACHED_FREE) == len(snapshot.tree_pages) > 1000
    picture = check_folds(sim, sim.last_step)
    cached = [cell for cell in picture.cells if cell.attrs.get("data-state") == "cached-free"
              and "data-last-block-id" in cell.attrs]
    assert cached and len(picture.cells) < 200
    assert "cached-free (in the radix tree, held by no request: evictable" in cached[0].attrs["aria-label"]
    assert "cached-free (" + str(len(snapshot.tree_pages)) + "): in the radix tree" in picture.legend
    assert "never under a radix tree" in picture.legend and "a prefix hit revives it" not in picture.legend
    page = min(snapshot.tree_pages)   # its detail: the page's meaning and the tokens its node holds
    detail = rp.render_block_detail(snapshot, page)
    assert "in the radix tree, held by no request" in detail
    node = next(n for n in snapshot.tree.nodes.values() if page in n.pages)
    k = node.pages.index(page)
    assert str(list(node.token_ids[2 * k:2 * k + 2])) in detail
    zh = pool_picture(snapshot, lang="zh")
    assert any("可复用缓存（在基数树中" in cell.attrs["aria-label"] for cell in zh.cells if "data-last-block-id" in cell.attrs)
