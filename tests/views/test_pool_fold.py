"""Large pools (a GPU sizes them from free memory) fold runs of idle free blocks into one cell;
pools of at most FOLD_ABOVE blocks are drawn block by block."""
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from blockviz import Simulator
from blockviz.states import BlockState, classify
from blockviz.views import render_pool as rp
from blockviz.views.format import grouped
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


def check_folds(sim: Simulator, step: int, selected: int | None = None):
    """Every block is shown once, in order, with its classifier state; a folded run holds only free
    blocks without tokens, untouched, after the queue head, in the same order in the free queue."""
    snapshot, events = sim.snapshot(step), sim.events(step)
    picture = pool_picture(snapshot, events, selected=selected)
    shown = unfolded(picture)
    assert [block_id for block_id, _ in shown] == list(range(snapshot.num_blocks))
    states, touched = classify(snapshot), touched_blocks(events)
    queue = {block_id: i for i, block_id in enumerate(snapshot.free_block_ids)}
    places = snapshot.num_blocks <= rp.COMPACT_ABOVE  # a compact pool leaves queue places to the detail panel
    for block_id, attrs in shown:
        assert attrs["data-state"] == states[block_id].value
        assert ("data-queue" in attrs) == places
        first = int(attrs["data-block-id"])
        if "data-last-block-id" not in attrs:
            if places:
                assert attrs["data-queue"] == str(queue.get(block_id, -1))
            continue
        assert states[block_id] is BlockState.FREE and not snapshot.blocks[block_id].token_ids
        assert block_id not in touched
        assert queue[first] > 0 and queue[block_id] == queue[first] + block_id - first
        if places:
            assert attrs["data-queue"] == str(queue[first])
        last = int(attrs["data-last-block-id"])
        assert last - first + 1 >= rp.FOLD_MIN and f"{grouped(first)}–{grouped(last)}" in attrs["aria-label"]
    for cell in picture.cells:  # the selected block's cell is outlined, be it alone or in a run
        last = int(cell.attrs.get("data-last-block-id", cell.key))
        assert ('class="bv-sel"' in cell.body) == (selected is not None and cell.key <= selected <= last)
    return picture


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(num_blocks=st.integers(4, 40), block_size=st.integers(1, 4), reqs=requests, fold_min=st.integers(2, 5),
       data=st.data())
def test_folded_runs_hide_only_idle_free_blocks(num_blocks, block_size, reqs, fold_min, data):
    sim = run(num_blocks, block_size, reqs)
    with pytest.MonkeyPatch.context() as mp:  # small pools, folded like large ones
        mp.setattr(rp, "FOLD_ABOVE", 0)
        mp.setattr(rp, "FOLD_MIN", fold_min)
        for step in range(sim.last_step + 1):
            check_folds(sim, step, data.draw(st.none() | st.integers(0, num_blocks - 1)))


def test_a_gpu_sized_pool_folds_its_idle_blocks_at_every_step(huge):
    for step in range(huge.last_step + 1):
        picture = check_folds(huge, step, selected=5)
        assert any("data-last-block-id" in cell.attrs for cell in picture.cells)
        assert len(picture.cells) < 200


def test_the_header_still_counts_the_whole_pool_and_the_legend_explains_a_fold(huge):
    svg = render_pool(huge.snapshot(2), huge.events(2), lang="zh")
    assert "共65536块" in svg and "整行一格" in svg
    en = render_pool(huge.snapshot(2), huge.events(2))
    assert f"65536 blocks, {len(huge.snapshot(2).free_block_ids)} in the free queue" in en
    assert "65 535 · " in en and "free, nothing to reuse" in en
