"""What a reader must be able to see: state and outcome glyphs of at least 14 px in every view (the
pool draws its state glyphs as shapes: at least as large, one distinct shape per state), and every
glyph of the views and the player in the fonts Debian ships with chromium (DejaVu and the CJK font
the test command installs): a glyph no font has is drawn as an empty box."""
import re
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from blockviz.i18n import t
from blockviz.states import BlockState, classify_block
from blockviz.views.glyphs import BOX, glyph, outline
from blockviz.views.player import STRINGS
from blockviz.views.render_pool import render_block_detail
from blockviz.views.render_view import render_view
from blockviz.views.svg_raster import draw_svg
from blockviz.views.theme import OUTCOME_STYLES, STATE_STYLES

from svgtools import glyph_box, glyph_path, parse, with_attr

GLYPHS = {s.glyph for s in STATE_STYLES.values()} | {s.glyph for s in OUTCOME_STYLES.values()}
FONTS = [*Path("/usr/share/fonts/truetype/dejavu").glob("*.ttf"), Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")]
PLAYER_GLYPHS = "⇤◀▶⇥▷❚"  # js/player.js draws these on its buttons


def glyph_sizes(svg: str) -> list[float]:
    return [float(el.get("font-size")) for el in parse(svg).iter() if el.tag.endswith("text")
            and (el.text or "").strip() in GLYPHS]


@pytest.mark.parametrize("view", ["chain", "mapping"])
def test_state_and_outcome_glyphs_are_at_least_14_px(lifecycle, view):
    sizes = [size for step in range(lifecycle.last_step + 1) for size in glyph_sizes(render_view(lifecycle, view, step))]
    assert sizes and min(sizes) >= 14


def test_the_detail_writes_its_state_glyph_at_14_px(lifecycle):
    """The block detail's text is 12 px; its state badge's glyph is not (a folded run's detail
    uses the same badge)."""
    snapshot = lifecycle.snapshot(1)
    for state in {classify_block(snapshot, b) for b in range(snapshot.num_blocks)}:
        block = next(b for b in range(snapshot.num_blocks) if classify_block(snapshot, b) is state)
        html = render_block_detail(snapshot, block)
        sizes = re.findall(r'<span style="font-size:(\d+)px">' + re.escape(STATE_STYLES[state].glyph) + "</span>", html)
        assert sizes and min(map(int, sizes)) >= 14, state


TEXT_GLYPH_INK = 8.4  # px: how wide and high DejaVu Sans Mono draws ○ ◎ ◔ ● ◆ at 14 px (⊘ 7.4)
ZOOM = 10  # glyphs drawn 10 times their size: ink measured to a tenth of a pixel


def inked(state: BlockState) -> np.ndarray:
    """Where the glyph of `state` puts ink, drawn in black on white ZOOM times its size by the
    exports' rasteriser."""
    path = glyph(state, 0, 0).replace(f'fill="{STATE_STYLES[state].text}"', 'fill="#000000"')
    fig = Figure(figsize=(BOX * ZOOM / 100, BOX * ZOOM / 100), dpi=100)
    draw_svg(fig, f'<svg xmlns="http://www.w3.org/2000/svg" width="{BOX}" height="{BOX}">{path}</svg>')
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[:, :, 0] < 128


def test_the_pools_state_glyphs_are_shapes_as_large_as_14_px_text_one_per_state(lifecycle, huge_as_4096):
    """Every cell (full, compact, a folded run) draws its state's glyph, whose ink is no smaller
    than a 14 px text glyph's, and no two states' glyphs look alike (colour never carries meaning alone)."""
    ink = {state: inked(state) for state in BlockState}
    for state, where in ink.items():
        rows, cols = np.flatnonzero(where.any(axis=1)), np.flatnonzero(where.any(axis=0))
        assert min(rows[-1] - rows[0] + 1, cols[-1] - cols[0] + 1) / ZOOM >= TEXT_GLYPH_INK + 4, state
    for a, b in combinations(BlockState, 2):  # a twentieth of the box at least inked in one and not the other
        assert (ink[a] != ink[b]).mean() > 0.05, (a, b)
    pools = [render_view(lifecycle, "pool", step) for step in range(lifecycle.last_step + 1)]
    pools += [render_view(huge_as_4096, "pool", 2)]  # compact cells and folded runs
    seen = set()
    for svg in pools:
        root = parse(svg)
        assert not glyph_sizes(svg)  # no state glyph left as text
        for cell in with_attr(root, "data-state"):
            state = BlockState(cell.get("data-state"))
            assert glyph_path(cell).get("d") == outline(state, *glyph_box(cell))  # the state's shape, in the cell
            seen.add(state)
    assert seen == set(BlockState)


def test_every_glyph_is_in_a_shipped_font():
    fonts = [path for path in FONTS if path.exists()]
    if not fonts:
        pytest.skip("DejaVu and WenQuanYi fonts not installed (tests/browser/install_chromium.sh installs them)")
    from fontTools.ttLib import TTCollection, TTFont
    covered = set()
    for path in fonts:
        for font in (TTCollection(path).fonts if path.suffix == ".ttc" else [TTFont(path)]):
            covered |= set(font.getBestCmap())
    text = "".join(GLYPHS) + PLAYER_GLYPHS + "".join(t(f"player.{key}", lang) for key in STRINGS for lang in ("en", "zh"))
    missing = sorted({ch for ch in text if ord(ch) not in covered and not ch.isspace()})
    assert not missing, missing
