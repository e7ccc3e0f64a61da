import numpy as np
import pytest

from blockviz.views.render_kv import MAX_BLOCKS, heat_colours, render_kv
from blockviz.views.theme import HEAT_NEGATIVE, HEAT_POSITIVE, HEAT_ZERO

from svgtools import parse, with_attr


def test_grid_has_a_cell_per_slot_and_outlines_the_written_ones():
    values = np.random.default_rng(0).normal(size=(6, 4, 8))
    root = parse(render_kv(values, written_slots=[5, 6, 23], step=2, title="layer 0 · head 0 · K"))
    cells = with_attr(root, "data-slot")
    assert [int(c.get("data-slot")) for c in cells] == list(range(24))
    written = [int(c.get("data-slot")) for c in cells if c.get("data-written") == "1"]
    assert written == [5, 6, 23]
    stripes = [r for r in cells[0].iter() if r.tag.endswith("rect")]
    assert len(stripes) == 8  # head_dim values of one slot
    assert root.get("data-step") == "2"


def test_colour_scale_is_diverging_and_symmetric():
    colours = heat_colours(np.array([-2.0, 0.0, 2.0, 9.0]), vmax=2.0)
    assert [c.upper() for c in colours] == [HEAT_NEGATIVE.upper(), HEAT_ZERO.upper(), HEAT_POSITIVE.upper(),
                                            HEAT_POSITIVE.upper()]


def test_rows_can_be_chosen_and_are_capped():
    values = np.zeros((200, 2, 2))
    root = parse(render_kv(values, blocks=[7, 3]))
    assert [int(c.get("data-slot")) for c in with_attr(root, "data-slot")] == [14, 15, 6, 7]
    assert len(with_attr(parse(render_kv(values)), "data-slot")) == MAX_BLOCKS * 2


def test_shape_is_checked():
    with pytest.raises(ValueError, match="num_blocks, block_size, head_dim"):
        render_kv(np.zeros((4, 4)))
