import io
import re
from xml.etree import ElementTree

import pytest
from PIL import Image, ImageColor

from blockviz.states import BlockState
from blockviz.recording.events import RequestAdded
from blockviz.views.export import export_gif, export_html, export_png, export_svg, first_busy_step
from blockviz.views.glyphs import C, R
from blockviz.views.registry import EXPORTED
from blockviz.views.theme import STATE_STYLES

from svgtools import glyph_box


@pytest.mark.parametrize("view", EXPORTED)
def test_svg_and_png_of_every_view(lifecycle, view, tmp_path):
    svg = export_svg(lifecycle, tmp_path / f"{view}.svg", view, step=3)
    root = ElementTree.parse(svg).getroot()
    assert root.tag.endswith("svg")
    png = export_png(lifecycle, tmp_path / f"{view}.png", view, step=3, dpi=50)
    with Image.open(png) as image:
        assert image.format == "PNG" and image.width > 100 and image.height > 20


def test_png_is_drawn_from_the_svg_at_its_size(lifecycle, tmp_path):
    svg = ElementTree.parse(export_svg(lifecycle, tmp_path / "pool.svg", "pool", step=2)).getroot()
    with Image.open(export_png(lifecycle, tmp_path / "pool.png", "pool", step=2, dpi=100)) as image:
        assert (image.width, image.height) == (int(svg.get("width")), int(svg.get("height")))
        colours = {c for _, c in image.convert("RGB").getcolors(1 << 16)}
    assert (0x00, 0x82, 0x5E) in colours  # the cached fill really is painted


def test_png_draws_the_pools_glyph_shapes(lifecycle, tmp_path):
    """The state glyphs are shapes (blockviz/views/glyphs.py): the PNG paints them, in the ink of
    each cell's state, where the SVG puts them."""
    svg = ElementTree.parse(export_svg(lifecycle, tmp_path / "pool.svg", "pool", step=2)).getroot()
    with Image.open(export_png(lifecycle, tmp_path / "pool.png", "pool", step=2, dpi=100)) as image:
        rgb = image.convert("RGB")
        painted = 0
        for cell in svg.iter():
            if cell.get("data-state") is None:
                continue
            ink = ImageColor.getrgb(STATE_STYLES[BlockState(cell.get("data-state"))].text)
            x, y = glyph_box(cell)
            # on every glyph's ring (or in its disc or diamond), right of the centre: painted in the state's ink
            pixel = rgb.getpixel((int(x + C + R), int(y + C)))
            assert max(abs(a - b) for a, b in zip(pixel, ink)) < 48, (cell.get("data-block-id"), pixel, ink)
            painted += 1
    assert painted >= 12


def test_gif_of_a_step_range(lifecycle, tmp_path):
    path = export_gif(lifecycle, tmp_path / "pool.gif", "pool", steps=range(0, 4), fps=4, dpi=40)
    with Image.open(path) as image:
        assert image.format == "GIF" and image.n_frames == 4


def test_gif_of_metrics(lifecycle, tmp_path):
    with Image.open(export_gif(lifecycle, tmp_path / "m.gif", "metrics", steps=[1, 5], dpi=30)) as image:
        assert image.n_frames == 2


def test_html_player_is_self_contained(lifecycle, tmp_path):
    path = export_html(lifecycle, tmp_path / "player.html", views=("pool", "events"), lang="zh")
    page = path.read_text(encoding="utf-8")
    sections = re.findall(r'<section class="bv-frame" data-step="(\d+)"', page)
    assert sections == [str(s) for s in range(len(lifecycle.frames))]
    assert page.count('data-view="pool"') == len(lifecycle.frames)
    assert "<script src" not in page and "https://" not in page and "<link" not in page
    assert 'lang="zh"' in page and "ArrowRight" in page


@pytest.mark.parametrize("view", ["pool", "events", "metrics"])
def test_chinese_exports_draw_every_glyph(lifecycle, view, tmp_path):
    """With a CJK font installed (CI's tests/browser/install_chromium.sh installs fonts-wqy-microhei),
    every character of every label in a Chinese PNG export has a glyph in one of the fonts its text
    asks for, so nothing is drawn as a box."""
    from matplotlib.font_manager import FontProperties, findfont
    from matplotlib.ft2font import FT2Font
    from matplotlib.text import Text

    from blockviz.views.export import _figure
    from blockviz.views.theme import matplotlib_fonts
    if len(matplotlib_fonts()) == 1:
        pytest.skip("no CJK font installed (apt-get install fonts-wqy-microhei)")
    figure = _figure(lifecycle, view, 3, "zh", 40)
    labels = [artist for artist in figure.findobj(Text) if artist.get_text().strip()]
    drawn = "".join(label.get_text() for label in labels)
    assert any("\u4e00" <= c <= "\u9fff" for c in drawn), "the Chinese export has no Chinese text to check"
    missing = set()
    for label in labels:
        charmaps = [FT2Font(findfont(FontProperties(family=family), fallback_to_default=False)).get_charmap()
                    for family in label.get_fontfamily()]
        missing |= {c for c in label.get_text() if not c.isspace() and not any(ord(c) in m for m in charmaps)}
    assert not missing, f"no glyph for {sorted(missing)}"
    export_png(lifecycle, tmp_path / f"{view}.png", view, step=3, lang="zh", dpi=40)


def test_a_gif_starts_at_the_first_step_where_something_happens(lifecycle, tmp_path):
    busy = first_busy_step(lifecycle)
    assert busy > 0 and all(isinstance(e, RequestAdded) for step in range(busy) for e in lifecycle.events(step))
    with Image.open(export_gif(lifecycle, tmp_path / "pool.gif", dpi=20)) as image:
        assert image.n_frames == lifecycle.last_step + 1 - busy
    with Image.open(export_gif(lifecycle, tmp_path / "all.gif", dpi=20, from_start=True)) as image:
        assert image.n_frames == lifecycle.last_step + 1


def test_every_figure_draws_chinese_with_the_cjk_font(lifecycle):
    """pool_slots_figure (lesson 01) as well as the exports: no glyph is missing in Chinese."""
    import warnings

    from blockviz.lessons import pool_slots_figure
    from blockviz.views.theme import matplotlib_fonts
    if len(matplotlib_fonts()) == 1:
        pytest.skip("no CJK font installed (apt-get install fonts-wqy-microhei)")
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*missing from font.*")
        fig = pool_slots_figure(4, 4, {5: "t0"}, title="物理块池", lang="zh")
        fig.savefig(io.BytesIO(), format="png", dpi=30)
    import matplotlib.pyplot as plt
    plt.close(fig)
