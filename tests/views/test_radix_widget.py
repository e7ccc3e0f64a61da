"""show(sim, "radix"): the tree of a live session under policy "sglang", redrawn on refresh()."""
import pytest

from blockviz.sim import Simulator
from blockviz.views import registry, show
from blockviz.views.radix_widget import RadixView
from blockviz.views.render_radix import preorder

from tests.views.svgtools import parse


def drawn_nodes(svg: str) -> set[int]:
    return {int(el.get("data-node")) for el in parse(svg).iter() if el.get("class") == "bv-radix-node"}


def test_the_registry_row_names_the_widget():
    assert registry.widget(registry.RADIX_VIEWS, "radix") is RadixView


def test_it_draws_the_sessions_tree_and_redraws_after_steps():
    sim = Simulator(num_blocks=16, block_size=4, policy="sglang", record=False)
    sim.add("hello world, hello", max_tokens=3)
    sim.add("hello world, there", max_tokens=3)
    view = show(sim, "radix")
    assert drawn_nodes(view.value) == set()   # nothing has run: the tree is empty
    sim.run()
    view.refresh()
    tree = sim.scheduler.block_manager.tree
    assert drawn_nodes(view.value) == {node.id for node, _ in preorder(tree)} != set()
    assert "“hello␣world,”" in view.value   # edges decoded by the session's tokenizer


def test_another_policy_is_refused_with_the_way_to_open_one():
    with pytest.raises(ValueError, match="policy='sglang'"):
        show(Simulator(num_blocks=8, block_size=4), "radix")
