"""The exports' rasteriser reads the path outlines the views write (views/svg_raster.py)."""
from math import hypot, isclose

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from blockviz.views.svg_raster import arc, draw_svg


@pytest.mark.parametrize("sweep, side", [(True, -1), (False, 1)])
def test_a_half_circle_goes_the_way_its_sweep_says(sweep, side):
    """SVG: sweep 1 goes the way angles grow, which on a page whose y points down is clockwise, so
    from the left end of a diameter over the top."""
    points = arc((0, 10), 5, True, sweep, (10, 10))
    assert points[-1] == pytest.approx((10, 10))
    assert all(isclose(hypot(x - 5, y - 10), 5, abs_tol=1e-9) for x, y in points)
    assert np.sign(points[len(points) // 2][1] - 10) == side


@pytest.mark.parametrize("large, longer", [(True, True), (False, False)])
def test_the_large_arc_flag_picks_the_longer_way_round(large, longer):
    """A chord shorter than the diameter: two circles of that radius pass through its ends, and
    each has a short and a long arc; the flags pick one of the four."""
    points = [(0.0, 0.0), *arc((0, 0), 5, large, True, (6, 0))]
    length = sum(hypot(b[0] - a[0], b[1] - a[1]) for a, b in zip(points, points[1:]))
    assert (length > 5 * np.pi) == longer  # more than half the circle's 10π


def test_a_ring_is_filled_between_its_circles():
    """Two circles drawn in opposite directions: the ring between them is filled, its middle is not."""
    d = "M10 50A40 40 0 1 1 90 50A40 40 0 1 1 10 50ZM30 50A20 20 0 1 0 70 50A20 20 0 1 0 30 50Z"
    fig = Figure(figsize=(1, 1), dpi=100)
    draw_svg(fig, f'<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">'
                  f'<path d="{d}" fill="#000000"/></svg>')
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    dark = np.asarray(canvas.buffer_rgba())[:, :, 0] < 128
    assert dark[50, 15] and dark[50, 85] and dark[15, 50]  # on the ring
    assert not dark[50, 50] and not dark[50, 5] and not dark[2, 2]  # its middle, and outside it
