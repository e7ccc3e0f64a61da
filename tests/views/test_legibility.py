"""What a reader must be able to see: state and outcome glyphs of at least 14 px in every view, and
every glyph of the views and the player in the fonts Debian ships with chromium (DejaVu and the
CJK font the test command installs): a glyph no font has is drawn as an empty box."""
from pathlib import Path

import pytest

from blockviz.i18n import t
from blockviz.views.player import STRINGS
from blockviz.views.render_view import render_view
from blockviz.views.theme import OUTCOME_STYLES, STATE_STYLES

from svgtools import parse

GLYPHS = {s.glyph for s in STATE_STYLES.values()} | {s.glyph for s in OUTCOME_STYLES.values()}
FONTS = [*Path("/usr/share/fonts/truetype/dejavu").glob("*.ttf"), Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")]
PLAYER_GLYPHS = "⇤◀▶⇥▷❚"  # js/player.js draws these on its buttons


def glyph_sizes(svg: str) -> list[float]:
    return [float(el.get("font-size")) for el in parse(svg).iter() if el.tag.endswith("text")
            and (el.text or "").strip() in GLYPHS]


@pytest.mark.parametrize("view", ["pool", "chain", "mapping"])
def test_state_and_outcome_glyphs_are_at_least_14_px(lifecycle, huge_as_4096, view):
    sizes = [size for step in range(lifecycle.last_step + 1) for size in glyph_sizes(render_view(lifecycle, view, step))]
    if view == "pool":  # compact cells, the legend and folded runs of a large pool too
        sizes += glyph_sizes(render_view(huge_as_4096, "pool", 2))
    assert sizes and min(sizes) >= 14


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
