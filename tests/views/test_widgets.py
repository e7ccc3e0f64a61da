import os
import subprocess
import sys
from pathlib import Path

import pytest
import traitlets

from blockviz import Simulator
from blockviz.recording.timeline import Timeline
from blockviz.i18n import t
from blockviz.states import classify
from blockviz.views import VIEWS, show
from blockviz.views.dashboard import Dashboard
from blockviz.views.render_view import default_seq, render_view
from blockviz.views.widgets import ChainView, MappingView, PoolView

from svgtools import parse, texts, with_attr

ROOT = Path(__file__).resolve().parents[2]


def fresh() -> Simulator:
    sim = Simulator(num_blocks=12, block_size=4)
    sim.add("the cat sat on the mat", max_tokens=4)
    sim.add("the cat sat on a hat", max_tokens=4)
    return sim


def page_states(svg: str) -> list[str]:
    return [el.get("data-state") for el in with_attr(parse(svg), "data-block-id")]


def press(player, cmd, **extra):
    player._on_msg(player, {"cmd": cmd, **extra}, [])


def test_the_player_steps_its_own_step_and_runs_the_engine_past_the_end():
    sim = fresh()
    dash = Dashboard(sim)
    assert dash.step == 0 and not dash.player.playing  # starts paused
    press(dash.player, "forward")  # past the recorded end: the engine runs
    assert sim.last_step == 1 and dash.step == dash.player.step == 1
    assert parse(dash.pool.svg).get("data-step") == "1"
    assert page_states(dash.pool.svg) == [s.value for s in classify(sim.snapshot(1))]
    dash.tabs.selected_index = dash.tab_views.index(dash.events)
    assert parse(dash.events.svg).get("data-step") == "1"
    press(dash.player, "back")
    assert parse(dash.pool.svg).get("data-step") == "0" and dash.pool.step == 0
    press(dash.player, "seek", step=999)
    assert sim.is_finished() and dash.step == sim.last_step
    assert "all requests finished" in dash.player.status and dash.player.at_end
    press(dash.player, "toggle")
    assert not dash.player.playing  # nothing left to play
    press(dash.player, "first")
    press(dash.player, "toggle")
    assert dash.player.playing
    press(dash.player, "last")
    assert not dash.player.playing and dash.step == sim.last_step
    assert sim.cursor == sim.last_step  # the engine's runs moved the cursor; the player never seeks it


def test_views_stay_at_the_step_they_were_opened_at_while_the_engine_runs_on():
    sim = fresh()
    sim.run(2)
    views = {name: show(sim, name, step=1) for name in ("dashboard", "pool", "mapping", "chain", "events", "metrics",
                                                          "player")}
    sim.run()  # the engine runs on: new frames arrive, the cursor follows the live end
    sim.seek(0)  # and a script moves the cursor
    for name, view in views.items():
        assert (view.step, view.follow) == (1, False), name
    for name in ("pool", "mapping", "chain", "events"):
        assert parse(views[name].svg).get("data-step") == "1", name
    assert parse(views["dashboard"].pool.svg).get("data-step") == "1"


def test_a_view_opened_at_the_live_end_follows_it_and_its_toggle_lets_go():
    sim = fresh()
    sim.run(1)
    sim.seek(0)
    at_cursor = show(sim, "pool")  # opened after a seek: at the cursor, not following
    live = show(sim, "pool", step=sim.last_step)
    dash = show(sim, step=-1)
    assert (at_cursor.step, at_cursor.follow) == (0, False)
    assert live.follow and dash.follow
    sim.run(2)
    assert live.step == dash.step == sim.last_step == 3 and at_cursor.step == 0
    assert parse(live.svg).get("data-step") == "3" and parse(dash.pool.svg).get("data-step") == "3"
    live.follow = False
    press(dash.player, "back")  # leaving the live end lets go of it
    sim.run(1)
    assert live.step == 3 and dash.step == 2 and not dash.follow
    at_cursor.follow = True  # the toggle: to the end at once, then along
    assert at_cursor.step == sim.last_step
    press(dash.player, "follow")
    assert dash.follow and dash.step == sim.last_step


def test_a_finished_trace_does_not_follow_and_steps_outside_it_are_refused(tmp_path):
    sim = fresh()
    sim.run()
    trace = Timeline(sim.frames, sim.meta)
    assert not show(trace, "pool", step=trace.last_step).follow  # nothing live to follow
    with pytest.raises(IndexError, match="not recorded"):
        show(trace, "pool", step=trace.last_step + 1)
    view = show(trace, "mapping", step=2)
    with pytest.raises(traitlets.TraitError, match="not recorded"):
        view.step = trace.last_step + 1
    view.step = 3
    assert parse(view.svg).get("data-step") == "3"


def test_clicking_a_block_shows_its_detail_and_a_second_click_closes_it():
    sim = fresh()
    sim.run(2)
    pool = PoolView(sim)
    pool._on_msg(pool, {"block": 3}, [])
    assert 'data-block-id="3"' in pool.detail and pool.selected == 3
    assert any(r.get("class") == "bv-sel" for r in parse(pool.svg).iter())
    pool._on_msg(pool, {"block": 3}, [])
    assert pool.selected is None


def test_the_pool_flows_into_the_columns_its_page_has_room_for():
    """pool.js sets `columns` from its pane's width: the pool is sent whole in that many columns, and
    the steps after it keep them."""
    sim = fresh()
    sim.run(3)
    pool = PoolView(sim, step=1)
    assert parse(pool.svg).get("data-columns") == "7"
    version = pool.full["version"]
    pool.columns = 3
    assert pool.full["version"] > version and parse(pool.full["svg"]).get("data-columns") == "3"
    pool.step = 2
    assert parse(pool.svg).get("data-columns") == "3" and parse(pool.svg).get("data-step") == "2"


def shows(page, pages, svg: str) -> bool:
    """The pool page shows exactly `svg`."""
    return page.html("svg") == pages.parse(svg)


def test_the_pool_page_follows_every_move_through_patches_and_a_late_page_catches_up(pages):
    """The pool's own page (js/pool.js, in node) applies each patch onto the version it shows; a page
    opened late asks for the whole pool."""
    sim = fresh()
    dash = Dashboard(sim)
    page = pages.open(dash.pool)
    full_version = dash.pool.full["version"]
    moves = [("forward", {}), ("forward", {}), ("back", {}), ("seek", {"step": 5}), ("first", {}), ("last", {})]
    for cmd, extra in moves:
        press(dash.player, cmd, **extra)
        assert shows(page, pages, render_view(sim, "pool", dash.step))
    dash.pool._on_msg(dash.pool, {"block": 3}, [])  # a click outlines block 3: one more patch
    assert shows(page, pages, render_view(sim, "pool", dash.step, selected=3))
    assert dash.pool.full["version"] == full_version  # all of it through patches
    late = pages.open(dash.pool)  # opened now: its `full` is old, so it asks for the pool again
    assert dash.pool.full["version"] > full_version
    assert late.html("svg") == page.html("svg") and shows(late, pages, render_view(sim, "pool", dash.step, selected=3))
    press(dash.player, "back")
    for shown in (page, late):
        assert shows(shown, pages, render_view(sim, "pool", dash.step, selected=3))
    page.close()
    late.close()


def test_hidden_tabs_do_no_work_until_shown():
    sim = fresh()
    dash = Dashboard(sim)
    press(dash.player, "forward")
    assert parse(dash.mapping.svg).get("data-step") == "1"
    assert dash.chain.svg == "" and dash.events.svg == ""  # hidden since the start: never drawn
    press(dash.player, "forward")
    assert bytes(dash.metrics.value) == b""
    dash.tabs.selected_index = 1
    assert parse(dash.chain.svg).get("data-step") == "2"
    dash.tabs.selected_index = dash.tab_views.index(dash.metrics)
    assert bytes(dash.metrics.value).startswith(b"\x89PNG")


def test_request_picker_follows_arrivals_and_drives_the_request_views():
    sim = fresh()
    dash = Dashboard(sim)
    assert len(dash.picker.options) == 3  # auto + A + B
    late = sim.add("a late one", max_tokens=2)
    assert len(dash.picker.options) == 4
    dash.picker.value = late.seq_id
    assert parse(dash.mapping.svg).get("data-seq-id") == str(late.seq_id)


def test_views_work_alone_and_only_redraw_when_their_frame_changes():
    sim = fresh()
    sim.run(2)
    mapping, chain = MappingView(sim, step=1), ChainView(sim, step=1)
    assert parse(mapping.svg).get("data-step") == "1" and parse(chain.svg).get("data-view") == "chain"
    assert mapping.controls  # alone, it shows its step and follow toggle
    before = mapping.svg
    mapping.svg = "sentinel"
    mapping.step = 1  # same frame, same options: no redraw
    sim.run(1)        # new frames elsewhere: none
    assert mapping.svg == "sentinel"
    mapping.refresh(force=True)
    assert mapping.svg == before


def drawn_svg(widget) -> str:
    return widget.full["svg"] if isinstance(widget, PoolView) else widget.svg


def test_the_traffic_view_is_a_replays_only():
    with pytest.raises(ValueError, match="traffic.replay"):
        show(fresh(), "traffic")


def test_showing_an_engine_never_imports_traffic():
    """views depend on traffic one way, in the traffic view's modules only: show tells a replay by
    its shape (TrafficRun), so every view of a Simulator, and the traffic view's error, import none
    of blockviz.traffic (a fresh interpreter: this one may have imported it for other tests)."""
    code = ("import sys\n"
            "from blockviz import Simulator\n"
            "from blockviz.views import VIEWS, show\n"
            "sim = Simulator(num_blocks=12, block_size=4)\n"
            "sim.add('the cat sat', max_tokens=2)\n"
            "sim.run(1)\n"
            "for view in VIEWS:\n"
            "    show(sim, view)\n"
            "try:\n"
            "    show(sim, 'traffic')\n"
            "except ValueError:\n"
            "    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('blockviz.traffic')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


@pytest.mark.filterwarnings("ignore:Glyph")  # Chinese figure labels without a CJK font installed
@pytest.mark.parametrize("view", VIEWS)
def test_show_makes_every_view(view):
    """Each view, opened in Chinese at step 1 (A and B prefilled), draws what it is for."""
    sim = fresh()
    sim.run(1)
    widget = show(sim, view, lang="zh", step=1)
    a, b = sorted(sim.seqs)
    if view in ("pool", "mapping", "chain", "events", "kv"):
        svg = drawn_svg(widget)
        root = parse(svg)
        assert (root.get("data-view"), root.get("data-step")) == (view, "1")
        assert svg == render_view(sim, view, 1, lang="zh")  # the widget shows the pure renderer's picture of that step
    if view == "pool":  # every block, in the state the engine's own classifier gives it
        assert page_states(svg) == [s.value for s in classify(sim.snapshot(1))]
        assert len(with_attr(root, "data-block-id")) == 12
    elif view == "mapping":  # the request's block table, one slot per token it holds
        seq = sim.snapshot(1).seqs[default_seq(sim, 1)]
        slots = {int(el.get("data-slot")) for el in with_attr(root, "data-slot")}
        table = list(seq.block_table)
        assert {table[p // 4] * 4 + p % 4 for p in range(len(seq.token_ids))} <= slots
    elif view == "chain":  # the blocks can_allocate probed for the request
        assert with_attr(root, "data-block-id")
    elif view == "events":  # both prefills are narrated, in Chinese
        shown = " ".join(texts(root))
        assert sim.labels[a] in shown and sim.labels[b] in shown and any("\u4e00" <= c <= "\u9fff" for c in shown)
    elif view == "kv":  # a Simulator records no K/V values, and says so
        assert t("kv.none", "zh") in texts(root)
    elif view == "metrics":
        assert bytes(widget.value).startswith(b"\x89PNG") and widget.step == 1
    elif view == "player":
        assert (widget.step, widget.first_step, widget.last_step) == (1, 0, 1)
        assert widget.strings == {k: t(f"player.{k}", "zh") for k in widget.strings} and widget.strings
    elif view == "dashboard":
        assert widget.step == 1 and parse(widget.pool.full["svg"]).get("data-step") == "1"
        assert page_states(widget.pool.full["svg"]) == [s.value for s in classify(sim.snapshot(1))]


def test_show_rejects_unknown_views():
    with pytest.raises(ValueError, match="unknown view"):
        show(fresh(), "nope")


def test_a_loaded_trace_plays_back_and_stops_at_its_end(tmp_path):
    from blockviz.recording.io import load_trace
    sim = fresh()
    sim.run()
    sim.save(tmp_path / "trace.json")
    trace = load_trace(tmp_path / "trace.json")
    dash = Dashboard(trace)
    press(dash.player, "seek", step=trace.last_step + 5)
    assert dash.step == trace.last_step and "end of the recording" in dash.player.status
    press(dash.player, "forward")
    assert dash.step == trace.last_step and not dash.player.playing
    assert page_states(dash.pool.svg) == [s.value for s in classify(sim.snapshot(sim.last_step))]


def test_a_gpu_sized_pool_page_follows_folds_and_a_click_on_a_fold_shows_its_first_block_alone(pages):
    sim = Simulator(num_blocks=65536, block_size=4)
    for i in range(6):
        sim.add(f"request {i} shares nothing with the others", max_tokens=6)
    dash = Dashboard(sim)
    page = pages.open(dash.pool)
    for cmd, extra in [("forward", {}), ("forward", {}), ("seek", {"step": 9}), ("back", {}), ("first", {}),
                       ("last", {})]:
        press(dash.player, cmd, **extra)
        assert shows(page, pages, render_view(sim, "pool", dash.step))
    press(dash.player, "first")  # step 0: block 0 is next, blocks 1–65 535 fold into one cell
    assert [cell.key for cell in dash.pool.picture.cells] == [0, 1]
    dash.pool._on_msg(dash.pool, {"block": 1}, [])  # what a click on the folded run sends
    assert [cell.key for cell in dash.pool.picture.cells] == [0, 1, 2]  # block 1 alone, the run from 2
    detail = parse(dash.pool.detail)
    assert (detail.get("data-block-id"), detail.get("data-last-block-id")) == ("1", None)
    assert detail.get("aria-label") == "block 1 at step 0"
    assert shows(page, pages, render_view(sim, "pool", 0, selected=1))
    press(dash.player, "forward")  # the first prefill takes block 1: the detail is the block's own
    detail = parse(dash.pool.detail)
    assert (detail.get("data-block-id"), detail.get("data-last-block-id")) == ("1", None)
    assert shows(page, pages, render_view(sim, "pool", 1, selected=1))
    page.close()


def test_with_a_bounded_history_views_move_to_the_first_step_kept_and_the_player_says_where_it_starts():
    sim = Simulator(num_blocks=12, block_size=4, history=3)
    sim.add("the cat sat on the mat", max_tokens=8)
    dash, pool = show(sim, step=0, follow=False), show(sim, "pool", step=0, follow=False)
    sim.run()
    assert sim.first_step > 0
    assert dash.step == pool.step == sim.first_step  # its step was let go: the oldest kept instead
    assert parse(pool.svg).get("data-step") == str(sim.first_step)
    assert dash.player.first_step == sim.first_step
    assert f"history kept from step {sim.first_step}" in dash.player.status
    press(dash.player, "first")
    assert dash.step == sim.first_step
    with pytest.raises(IndexError, match="not recorded"):
        show(sim, "pool", step=0)


def test_a_dashboard_step_syncs_no_pane_step_to_the_page():
    """The panes' step stays in Python: a step sends the player's state and the pictures, not one
    message per pane."""
    dash = Dashboard(fresh())
    assert "step" in dash.player.keys and not any("step" in view.keys for view in [dash.pool, *dash.tab_views])
    alone = show(fresh(), "pool")
    assert alone.controls and alone.caption == "step 0" and "follow" in alone.keys
    assert not dash.pool.controls
