"""The forest, eviction order and counters of a watch, and its widget (no browser)."""
import time

import pytest

from blockviz.views import show
from blockviz.views.render_forest import (counters, forest_text, layout, render_counters, render_evictions,
                                          render_forest, short, step_line)
from blockviz.views.vllm_widget import WatchView
from blockviz.vllm import Watch
from blockviz.vllm.wire import removed, stored

from tests.views.svgtools import parse
from tests.vllm.synthetic import tcp


def offline(*batches) -> Watch:
    """A watch fed in process (no sockets): each argument is one batch of events."""
    from blockviz.vllm.wire import encode_batch
    watch = Watch(subscribe=False, api=None)
    for seq, events in enumerate(batches):
        watch.batch("engine", seq, encode_batch(0.0, events), "live", 0)
    return watch


def shared_prefix_watch() -> Watch:
    return offline([stored([1, 2], None, [1, 2, 3, 4], 2)],
                   [stored([3], 1, [9, 9], 2)],          # branches off block 1
                   [removed([2]), stored([4], None, [7, 7], 2)])


def cells(svg: str) -> list[dict]:
    return [el.attrib for el in parse(svg).iter() if "data-state" in el.attrib]


def test_the_forest_branches_where_prompts_share_a_prefix():
    watch = shared_prefix_watch()
    placed, left_out = layout(watch.picture(1))
    assert left_out == 0
    assert [(short(p.record.hash), p.depth) for p in placed["engine"]] == \
        [(short(1), 0), (short(2), 1), (short(3), 1)]
    assert [p.row for p in placed["engine"]] == [0, 0, 1]


def test_this_steps_stored_and_removed_blocks_are_marked():
    watch = shared_prefix_watch()
    svg = render_forest(watch.picture(2))
    states = {c["data-hash"]: c["data-state"] for c in cells(svg)}
    assert states == {short(1): "cached", short(2): "removed", short(3): "cached", short(4): "stored"}
    assert parse(svg).get("data-step") == "2" and parse(svg).get("data-view") == "vllm-forest"
    assert states == {c["data-hash"]: c["data-state"] for c in cells(render_forest(watch.picture(2), lang="zh"))}
    at_one = {c["data-hash"]: c["data-state"] for c in cells(render_forest(watch.picture(1)))}
    assert at_one == {short(1): "cached", short(2): "cached", short(3): "stored"}


def test_token_text_is_escaped_and_control_characters_drawn():
    watch = offline([stored([1], None, [1, 2], 2)])
    svg = render_forest(watch.picture(), decode=lambda ids: '<script>alert("x")</script>\x07\n')
    root = parse(svg)   # well-formed XML: nothing raw got through
    assert "<script>" not in svg and "\x07" not in svg
    assert any("␇" in (el.text or "") for el in root.iter())


def test_the_eviction_order_and_counters_follow_the_step():
    watch = shared_prefix_watch()
    html = render_evictions(watch.picture(2))
    assert html.count("<li") == 1 and f'data-hash="{short(2)}"' in html and "data-now" in html
    assert "nothing removed yet" in render_evictions(watch.picture(1))
    values = counters(watch.picture(2), {"queries": 200.0, "hits": 50.0}, problems=1)
    assert (values["stored"], values["removed"], values["resident"], values["hit_rate"]) == (4, 1, 3, 0.25)
    strip = render_counters(values)
    assert "25%" in strip and "malformed or foreign messages: 1" in strip
    assert "no server metrics" in render_counters(counters(watch.picture(2), None, 0))


def test_a_steps_events_are_its_batch_decoded_again():
    watch = shared_prefix_watch()
    assert [type(e).__name__ for e in watch.events(2)] == ["RemovedMap", "StoredMap"]
    assert watch.events(0)[0].block_hashes == [1, 2]


def test_text_forms_for_the_terminal():
    watch = shared_prefix_watch()
    assert step_line(watch.picture(2)) == "step 2 · engine seq 2 (live) · +1 stored -1 removed · 3 cached"
    lines = forest_text(watch.picture(2)).splitlines()
    assert lines[0] == "  engine" and lines[2].startswith("    ✗ ") and lines[-1].startswith("  + ")


def test_show_gives_the_live_widget_and_it_redraws_once_per_burst():
    events = tcp()
    watch = Watch(events)
    view = show(watch)
    assert isinstance(view, WatchView) and view.view.forest == ""   # waiting for the first batch
    from tests.vllm.publisher import Publisher
    with Publisher(events) as publisher:
        publisher.wait_for_subscribers()
        drawn = []
        view.view.observe(lambda change: drawn.append(change["new"]), "forest")
        for i in range(200):
            publisher.publish([stored([i + 1], i or None, [i, i], 2)])
        deadline = time.monotonic() + 10
        while view.player.step != watch.last_step or watch.last_step < 199:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        time.sleep(0.3)
    assert view.view.step == 199 and f'data-step="199"' in view.view.forest
    assert len(drawn) < 50       # 200 batches, far fewer redraws
    view.player.seek(5)
    assert 'data-step="5"' in view.view.forest and view.player.follow is False
    watch.close()


def test_a_cache_larger_than_the_view_draws_its_newest_blocks_and_says_how_many_it_left_out():
    watch = offline(*[[stored([i + 1], None, [i, i], 2)] for i in range(30)])
    placed, left_out = layout(watch.picture(), max_cells=10)
    assert left_out == 20 and [p.record.hash for p in placed["engine"]] == list(range(21, 31))
    assert "older blocks not drawn: 20" in render_forest(watch.picture(), max_cells=10)


def test_a_watch_has_no_pool_view():
    with pytest.raises(ValueError, match="cannot draw 'pool'"):
        show(shared_prefix_watch(), "pool")
