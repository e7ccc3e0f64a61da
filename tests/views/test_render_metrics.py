import math

from blockviz import Simulator
from blockviz.states import BlockState
from blockviz.recording.events import Preempted
from blockviz.views.render_metrics import MetricsIndex, metrics_rows, render_metrics, slot_usage


def test_rows_count_every_block_once_and_accumulate_preemptions(lifecycle):
    rows = metrics_rows(lifecycle.frames)
    assert len(rows) == len(lifecycle.frames)
    assert all(sum(r.states) == 12 for r in rows)
    preempted = sum(isinstance(e, Preempted) for f in lifecycle.frames for e in f.events)
    assert preempted > 0 and rows[-1].preemptions == preempted


def test_hit_rate_counts_prompt_tokens_served_from_the_cache():
    sim = Simulator(num_blocks=16, block_size=4)
    sim.add("abcdefghijkl", max_tokens=1)  # 3 blocks: h0, h1 hashed, the last never probed
    sim.run()
    sim.add("abcdefghijkl", max_tokens=1)  # hits its first two blocks: 8 of 12 tokens
    sim.run()
    rows = metrics_rows(sim.frames)
    assert math.isnan(rows[0].hit_rate)
    assert (rows[-1].hit_tokens, rows[-1].queried_tokens) == (8, 24)


def test_wasted_slots_are_the_empty_tail_of_each_last_block():
    sim = Simulator(num_blocks=8, block_size=4)
    sim.add("abcdef", max_tokens=3)  # 6 tokens -> 7 after the first step: 2 blocks, 1 empty slot
    sim.run(1)
    assert slot_usage(sim.snapshot()) == (1, 8)


def test_index_reads_new_frames_only_and_refreshes_the_last():
    sim = Simulator(num_blocks=8, block_size=4)
    index = MetricsIndex()
    assert len(index.update(sim.frames)) == 1
    sim.add("abcdef", max_tokens=3)
    sim.run(2)
    rows = index.update(sim.frames)
    assert rows == metrics_rows(sim.frames)


def test_figure_has_the_four_plots_and_the_cursor(lifecycle):
    fig = render_metrics(metrics_rows(lifecycle.frames), cursor=4, lang="en")
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == ["blocks per state", "prefix-cache hit rate (tokens, cumulative)", "preemptions (cumulative)",
                      "KV slots"]
    labels = [text.get_text() for text in fig.axes[0].get_legend().get_texts()]
    assert len(labels) == len(BlockState)


def test_count_axes_start_at_zero_even_when_flat():
    """A run without preemptions draws its preemptions axis from 0 (not ±0.05 around a flat zero)."""
    sim = Simulator(num_blocks=8, block_size=4)
    sim.add("abcdef", max_tokens=3)
    sim.run()
    fig = render_metrics(metrics_rows(sim.frames), lang="en")
    for ax in (fig.axes[0], fig.axes[2], fig.axes[3]):
        bottom, top = ax.get_ylim()
        assert bottom == 0 and top >= 1, (ax.get_title(), bottom, top)
    assert fig.axes[2].get_ylim() == (0, 1)
