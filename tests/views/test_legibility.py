"""What a reader must be able to see: state and outcome glyphs of at least 14 px in every view (the
pool draws its state glyphs as shapes: at least as large, one distinct shape per state), and every
glyph of the views and the player in the fonts Debian ships with chromium (DejaVu and the CJK font
the test command installs): a glyph no font has is drawn as an empty box."""
import re
from pathlib import Path

import pytest

from blockviz.i18n import t
from blockviz.states import BlockState, classify_block
from blockviz.views.glyphs import glyph
from blockviz.views.player import STRINGS
from blockviz.views.render_pool import render_block_detail
from blockviz.views.render_view import render_view
from blockviz.views.theme import OUTCOME_STYLES, STATE_STYLES

from svgtools import parse, with_attr

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


SHAPES = ("circle", "path", "line")
TEXT_GLYPH_INK = 8.4  # px: how wide and high DejaVu Sans Mono draws ○ ◎ ◔ ● ◆ at 14 px (⊘ 7.4)


def glyph_shapes(cell) -> list:
    """The shapes of a cell's glyph: its paths and lines without a theme class (the notch has one)."""
    return [el for el in cell.iter() if el.tag.split("}")[-1] in SHAPES and not el.get("class")]


def extent(shapes) -> tuple[float, float]:
    """Width and height of what the shapes cover, strokes included."""
    xs, ys = [], []
    for el in shapes:
        tag, half = el.tag.split("}")[-1], float(el.get("stroke-width", 0)) / 2
        if tag == "circle":
            r = float(el.get("r")) + half
            xs += [float(el.get("cx")) - r, float(el.get("cx")) + r]
            ys += [float(el.get("cy")) - r, float(el.get("cy")) + r]
        elif tag == "line":
            xs += [float(el.get("x1")) - half, float(el.get("x2")) + half]
            ys += [float(el.get("y1")) + half, float(el.get("y2")) - half]
        else:
            points = [tuple(map(float, p)) for p in re.findall(r"[ML]([-\d.]+) ([-\d.]+)", el.get("d"))]
            xs += [x for x, _ in points]
            ys += [y for _, y in points]
    return max(xs) - min(xs), max(ys) - min(ys)


def signature(shapes) -> tuple:
    return tuple((el.tag.split("}")[-1], el.get("fill") == "none") for el in shapes)


def test_the_pools_state_glyphs_are_shapes_as_large_as_14_px_text_one_per_state(lifecycle, huge_as_4096):
    """Every cell (full, compact, a folded run) draws its state's glyph, no smaller than a 14 px
    text glyph, and no two states' glyphs are the same shape (colour never carries meaning alone)."""
    drawn = {state: parse(f'<svg xmlns="http://www.w3.org/2000/svg">{glyph(state, 0, 0)}</svg>')
             for state in BlockState}
    kinds = {state: signature(glyph_shapes(root)) for state, root in drawn.items()}
    assert len(set(kinds.values())) == len(BlockState)
    for state, root in drawn.items():
        assert min(extent(glyph_shapes(root))) >= TEXT_GLYPH_INK + 4, state
    pools = [render_view(lifecycle, "pool", step) for step in range(lifecycle.last_step + 1)]
    pools += [render_view(huge_as_4096, "pool", 2)]  # compact cells and folded runs
    seen = set()
    for svg in pools:
        root = parse(svg)
        assert not glyph_sizes(svg)  # no state glyph left as text
        for cell in with_attr(root, "data-state"):
            state = BlockState(cell.get("data-state"))
            assert signature(glyph_shapes(cell)) == kinds[state]
            assert min(extent(glyph_shapes(cell))) >= TEXT_GLYPH_INK + 4
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
