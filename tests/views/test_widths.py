"""Nothing overflows sideways in a 900 px notebook column (JupyterLab at 1366 px with the file
browser open), whose dashboard pane is about 810 px wide: every view of a request with a long prompt, for block sizes up to 16, in both
languages; the mapping wraps its logical blocks onto rows, long text is cut with the whole of it
in a tooltip."""
import pytest

from blockviz import Simulator
from blockviz.views.render_view import render_view

from svgtools import parse

COLUMN = 800


def long_run(block_size: int) -> Simulator:
    sim = Simulator(num_blocks=512, block_size=block_size, max_num_batched_tokens=4096)
    sim.add("It is a truth universally acknowledged, that a single man in possession of a good fortune, "
            "must be in want of a wife. " * 2, max_tokens=6)
    sim.add("It is a truth universally acknowledged, that a single man in possession of a good fortune?", max_tokens=3)
    sim.run()
    return sim


@pytest.mark.parametrize("block_size", [1, 2, 4, 8, 16])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_view_fits_the_pane_of_a_900_px_column(block_size, lang):
    sim = long_run(block_size)
    for step in range(sim.first_step, sim.last_step + 1):
        for view in ("pool", "mapping", "chain", "events"):
            width = float(parse(render_view(sim, view, step, lang=lang)).get("width"))
            assert width <= COLUMN, (view, step, width)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_large_pools_fit_too(huge_as_4096, lang):
    for step in (0, 2, huge_as_4096.last_step):
        assert float(parse(render_view(huge_as_4096, "pool", step, lang=lang)).get("width")) <= COLUMN
