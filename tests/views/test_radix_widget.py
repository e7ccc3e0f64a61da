"""show(sim, "radix"): SGLang's tree under policy "sglang". Over a recording it is a stepped view
drawing the tree rebuilt from the recording at its step, the same picture as the live tree had at
that step; a session that does not record gets the live tree, redrawn on refresh()."""
import re

import pytest

from blockviz.recording.io import load_trace
from blockviz.sim import Simulator
from blockviz.views import registry, show
from blockviz.views.radix_widget import LiveRadixView, RadixView, radix_view
from blockviz.views.render_radix import preorder, render_radix

from tests.views.svgtools import parse


def drawn_nodes(svg: str) -> set[int]:
    return {int(el.get("data-node")) for el in parse(svg).iter() if el.get("class") == "bv-radix-node"}


def unnamed(svg: str) -> str:
    """The picture without node ids (the live tree's are TreeNode.id, the recording's its own numbers)."""
    return re.sub(r' data-node="\d+"', "", svg)


def test_the_registry_row_names_the_maker():
    assert registry.widget(registry.RADIX_VIEWS, "radix") is radix_view


def workload(sim: Simulator):
    for prompt in ("hello world, hello", "hello world, there", "hello moon", "goodbye world"):
        sim.add(prompt, max_tokens=3)


def test_a_recording_is_drawn_at_the_views_step_as_the_live_tree_was_then(tmp_path):
    sim = Simulator(num_blocks=12, block_size=2, policy="sglang")
    workload(sim)
    live = [render_radix(sim.scheduler.block_manager.tree, decode=sim.tokenizer.decode, step=0)]
    while not sim.scheduler.is_finished():
        sim.step()
        live.append(render_radix(sim.scheduler.block_manager.tree, decode=sim.tokenizer.decode, step=sim.num_steps))
    view = show(sim, "radix", step=0)
    assert isinstance(view, RadixView) and drawn_nodes(view.svg) == set()   # nothing has run: the tree is empty
    for step in [*range(sim.last_step + 1), *range(sim.last_step, -1, -1)]:   # forward, then back
        view.step = step
        assert unnamed(view.svg) == unnamed(live[step]), f"step {step}"
    assert any("“hello␣”" in unnamed(svg) for svg in live)   # edges decoded by the session's tokenizer
    sim.save(tmp_path / "run.jsonl")
    loaded = show(load_trace(tmp_path / "run.jsonl"), "radix", step=sim.last_step)
    assert loaded.svg == show(sim, "radix", step=sim.last_step).svg


def test_a_view_following_the_session_moves_with_it():
    sim = Simulator(num_blocks=12, block_size=2, policy="sglang")
    workload(sim)
    view = show(sim, "radix", follow=True)
    sim.run()
    assert view.step == sim.last_step
    assert unnamed(view.svg) == unnamed(render_radix(sim.scheduler.block_manager.tree, decode=sim.tokenizer.decode,
                                                     step=sim.last_step))


def test_a_session_that_does_not_record_gets_the_live_tree_redrawn_on_refresh():
    sim = Simulator(num_blocks=16, block_size=4, policy="sglang", record=False)
    sim.add("hello world, hello", max_tokens=3)
    sim.add("hello world, there", max_tokens=3)
    view = show(sim, "radix")
    assert isinstance(view, LiveRadixView) and drawn_nodes(view.value) == set()
    sim.run()
    view.refresh()
    tree = sim.scheduler.block_manager.tree
    assert drawn_nodes(view.value) == {node.id for node, _ in preorder(tree)} != set()
    assert "“hello␣world,”" in view.value   # edges decoded by the session's tokenizer


@pytest.mark.parametrize("record", [True, False])
def test_another_policy_is_refused_with_the_way_to_open_one(record):
    with pytest.raises(ValueError, match="policy='sglang'"):
        show(Simulator(num_blocks=8, block_size=4, record=record), "radix")


@pytest.mark.parametrize("record", [True, False])
def test_a_traffic_replay_under_sglang_shows_its_engines_tree(record):
    from blockviz import traffic
    run = traffic.replay(traffic.load("conversation").head(4), 4096, policy="sglang", record=record)
    view = show(run, "radix")
    if record:
        assert isinstance(view, RadixView) and view.step == run.engine.last_step
        svg = view.svg
    else:
        assert isinstance(view, LiveRadixView)
        svg = view.value
    tokenizer = getattr(run.engine, "tokenizer", None)
    assert unnamed(svg) == unnamed(render_radix(run.engine.scheduler.block_manager.tree, step=run.engine.num_steps,
                                                decode=tokenizer.decode if tokenizer else None))


def test_the_dashboard_and_every_picture_step_an_sglang_recording():
    from blockviz.views.dashboard import Dashboard
    from blockviz.views.registry import SVG_VIEWS
    from blockviz.views.render_view import render_view
    sim = Simulator(num_blocks=12, block_size=2, policy="sglang")
    workload(sim)
    dash = Dashboard(sim)
    assert dash.radix in dash.tab_views and not hasattr(Dashboard(Simulator(num_blocks=4, block_size=2)), "radix")
    dash.tabs.selected_index = dash.tab_views.index(dash.radix)
    radix = show(sim, "radix", step=0)
    while not sim.is_finished():
        dash.player._on_msg(dash.player, {"cmd": "forward"}, [])   # past the recorded end: the engine runs
    assert dash.step == sim.last_step > 3
    for step in range(sim.last_step, -1, -1):
        dash.player._on_msg(dash.player, {"cmd": "back" if step < sim.last_step else "last"}, [])
        assert dash.step == step and parse(dash.pool.svg).get("data-step") == str(step)
        radix.step = step
        assert parse(radix.svg).get("data-step") == str(step) and dash.radix.svg == radix.svg   # the player's tab
        for view in SVG_VIEWS:
            for lang in ("en", "zh"):
                assert parse(render_view(sim, view, step, lang=lang)).get("data-step") == str(step)


def test_the_nodes_a_step_touched_are_drawn_in_a_tree_past_the_cap():
    from blockviz.views.render_radix import touched_nodes
    sim = Simulator(num_blocks=64, block_size=2, policy="sglang")
    for i in range(12):
        sim.add(f"prompt {i % 4} number {i:02d}", max_tokens=2)
    sim.run()
    view = show(sim, "radix", max_nodes=3)
    past_the_cap = folded = 0
    for step in range(sim.last_step + 1):
        view.step = step
        tree, touched = sim.snapshot(step).tree, touched_nodes(sim.events(step))
        assert touched <= set(tree.nodes)   # an evicted leaf is not asked for
        drawn = drawn_nodes(view.svg)
        assert touched <= drawn, f"step {step}"
        for node_id in drawn:   # with its path from the root
            parent = tree.nodes[node_id].parent
            assert parent is tree.root_node or parent.id in drawn
        past_the_cap += bool(touched - drawn_nodes(render_radix(tree, max_nodes=3)))   # the first rows miss some
        folded += 'class="bv-radix-fold"' in view.svg
    assert past_the_cap and folded
