"""Steps sent ahead (views/ahead.py): a dashboard's page steps at once on ◀ ▶ from the patches and
labels Python sent before, then tells Python, and every page ends exactly where Python is. The page is
the widgets' own front end (js/player.js, js/pool.js) in node (jspage.py)."""
import json

import pytest

from blockviz import Simulator
from blockviz.views import ahead as ahead_module
from blockviz.views.ahead import AHEAD, BEHIND, BUDGET, steps_around
from blockviz.views.dashboard import Dashboard
from blockviz.views.render_view import render_view

from jspage import Pages
from svgtools import parse


def recorded(num_blocks: int = 12) -> Simulator:
    sim = Simulator(num_blocks=num_blocks, block_size=4)
    sim.add("the cat sat on the mat", max_tokens=6)
    sim.add("the cat sat on a hat", max_tokens=6)
    sim.run()
    return sim


def shows(page, pages, svg: str) -> bool:
    return page.html("svg") == pages.parse(svg)


def sent_ahead(dash) -> dict[int, list[dict]]:
    """The pool's patches sent ahead, by base version."""
    by_base: dict[int, list[dict]] = {}
    for patch in json.loads(dash.pool.ahead):
        by_base.setdefault(patch["base"], []).append(patch)
    return by_base


def test_steps_around_are_nearest_first_within_the_steps_recorded():
    assert steps_around(5, 0, 20) == [6, 4, 7, 3, 8, 9]
    assert (AHEAD, BEHIND) == (4, 2)
    assert steps_around(0, 0, 20) == [1, 2, 3, 4]
    assert steps_around(20, 0, 20) == [19, 18]  # at the end none after
    assert steps_around(3, 2, 4) == [4, 2]


def test_the_pool_sends_chains_of_patches_around_the_step_shown():
    sim = recorded()
    dash = Dashboard(sim, step=4)
    chains = sent_ahead(dash)
    version = dash.pool.version
    forward, steps = version, []
    while any(p["step"] > 4 for p in chains.get(forward, [])):
        patch = next(p for p in chains[forward] if p["step"] > 4)
        steps.append(patch["step"])
        forward = patch["version"]
    assert steps == [5, 6, 7, 8]
    backward = [p["step"] for p in chains[version] if p["step"] < 4]
    assert backward == [3]
    assert sorted(map(int, dash.player.ahead)) == [2, 3, 5, 6, 7, 8]
    assert dash.player.ahead["5"] == [f"step 5 / {sim.last_step}", False]
    assert len({p["version"] for patches in chains.values() for p in patches}) == 6  # a version each


def test_the_page_steps_at_once_then_python_and_every_other_page_catch_up(pages):
    """▶ in the page: the pool and the player show the next step before Python hears of it; then
    Python moves to it, the page ignores the patch it already applied, a second browser applies it,
    and the mapping pane follows."""
    sim = recorded()
    dash = Dashboard(sim, step=2)
    player, pool = pages.open(dash.player), pages.open(dash.pool)
    other = Pages()  # another browser on the same kernel
    try:
        elsewhere = other.open(dash.pool)
        with pages.held():  # what the page shows before Python answers
            player.click('[data-cmd="forward"]')
            assert shows(pool, pages, render_view(sim, "pool", 3))
            assert player.attribute(".bv-player", "data-step") == "3"
            assert player.attribute(".bv-player", "aria-busy") == "true"
            assert dash.step == 2 and shows(elsewhere, other, render_view(sim, "pool", 2))
        assert dash.step == 3 and parse(dash.mapping.svg).get("data-step") == "3"
        assert shows(pool, pages, render_view(sim, "pool", 3)) and shows(elsewhere, other, render_view(sim, "pool", 3))
        assert player.attribute(".bv-player", "aria-busy") == "false"
        versions = dash.pool.full["version"]
        with pages.held():  # three presses before any answer: the chain sent ahead carries two (BEHIND)
            player.click('[data-cmd="back"]')
            player.key(".bv-player", "ArrowLeft")
            assert shows(pool, pages, render_view(sim, "pool", 1))
            player.click('[data-cmd="back"]')  # not sent ahead: asks Python
            assert shows(pool, pages, render_view(sim, "pool", 1))
            assert player.attribute(".bv-player", "data-step") == "1"
        assert dash.step == 0 and not dash.follow
        for page, where in ((pool, pages), (elsewhere, other)):
            assert shows(page, where, render_view(sim, "pool", 0))
        assert dash.pool.full["version"] == versions  # nobody asked for the whole pool
        assert player.attribute(".bv-player", "data-step") == "0"
    finally:
        other.close()


def test_a_click_on_a_block_is_carried_into_the_steps_sent_ahead(pages):
    sim = recorded()
    dash = Dashboard(sim, step=3)
    player, pool = pages.open(dash.player), pages.open(dash.pool)
    dash.pool._on_msg(dash.pool, {"block": 1}, [])
    with pages.held():
        player.click('[data-cmd="forward"]')
        assert shows(pool, pages, render_view(sim, "pool", 4, selected=1))
    assert dash.step == 4 and shows(pool, pages, render_view(sim, "pool", 4, selected=1))
    player.close()
    pool.close()


def test_at_the_live_end_nothing_is_sent_after_and_the_press_runs_the_engine(pages):
    sim = recorded()
    sim.add("a late one", max_tokens=3)
    dash = Dashboard(sim, step=sim.last_step)  # opened at the live end: it follows
    assert dash.follow
    assert all(p["step"] < dash.step for p in json.loads(dash.pool.ahead))
    assert all(int(k) < dash.step for k in dash.player.ahead)
    player, pool = pages.open(dash.player), pages.open(dash.pool)
    last = sim.last_step
    player.click('[data-cmd="forward"]')
    assert sim.last_step == last + 1 and dash.step == last + 1 and dash.follow
    assert shows(pool, pages, render_view(sim, "pool", last + 1))
    assert player.attribute(".bv-player", "data-step") == str(last + 1)
    player.click('[data-cmd="back"]')  # sent ahead: at once; leaving the live end lets go of it
    assert dash.step == last and not dash.follow
    player.close()
    pool.close()


def test_what_is_sent_ahead_stays_within_the_budget_and_a_step_beyond_it_asks_python(pages, monkeypatch):
    sim = recorded(64)
    sizes = {step: [len(json.dumps(p, ensure_ascii=False, separators=(",", ":")))
                    for p in json.loads(Dashboard(sim, step=step).pool.ahead)] for step in (0, 1)}
    assert len(sizes[0]) == 4 and sum(sizes[0]) <= BUDGET
    monkeypatch.setattr(ahead_module, "BUDGET", sizes[1][0])  # room for the nearest patch only, at step 1
    dash = Dashboard(sim, step=1)
    assert [p["step"] for p in json.loads(dash.pool.ahead)] == [2]
    player, pool = pages.open(dash.player), pages.open(dash.pool)
    with pages.held():
        player.click('[data-cmd="forward"]')
        player.click('[data-cmd="forward"]')  # step 3 was not sent: the page waits for Python
        assert player.attribute(".bv-player", "data-step") == "2"
        assert shows(pool, pages, render_view(sim, "pool", 2))
    assert dash.step == 3 and shows(pool, pages, render_view(sim, "pool", 3))
    assert player.attribute(".bv-player", "data-step") == "3"
    player.close()
    pool.close()


@pytest.mark.parametrize("view", ["pool", "mapping"])
def test_a_player_driving_no_pool_sends_nothing_ahead(view):
    from blockviz.views import show
    sim = recorded()
    player = show(sim, "player", step=1)
    player.drive(show(sim, view, step=1))
    assert bool(player.ahead) == (view == "pool")


def test_a_seek_that_runs_the_engine_sends_ahead_only_around_the_step_it_ends_on():
    for follow in (True, False):
        sim = recorded()
        sim.add("a late one", max_tokens=4)
        dash = Dashboard(sim, step=sim.last_step, follow=follow)
        sent = []
        dash.pool.observe(lambda change: sent.append({p["step"] for p in json.loads(change["new"])}), "ahead")
        last = sim.last_step
        dash.player._on_msg(dash.player, {"cmd": "forward"}, [])
        assert dash.step == last + 1 and dash.follow == follow
        assert sent == [{last, last - 1}]  # once, around the new step: none of it sent ahead of the old one
