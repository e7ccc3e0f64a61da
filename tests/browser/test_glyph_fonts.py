"""Debian's chromium draws every state and probe-outcome glyph that the chain and mapping views
write as text (the pool draws its glyphs as shapes), in English and Chinese, at 14 px or more and
from a font the machine has, and the player's button glyphs too: a glyph no font has comes out as
the font's empty box, the same picture as an unassigned code point's, which is what the test
compares each glyph's drawing with (in the font and size chromium computed for it). No JupyterLab:
the views' SVG and the player's buttons in a bare page."""
from pathlib import Path

import pytest

from blockviz import Simulator
from blockviz.views.render_view import render_view
from blockviz.views.theme import OUTCOME_STYLES, STATE_STYLES

from labserver import FLAGS

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

GLYPHS = sorted({s.glyph for s in STATE_STYLES.values()} | {s.glyph for s in OUTCOME_STYLES.values()})
PLAYER = Path(__file__).resolve().parents[2] / "blockviz" / "views" / "js" / "player.js"
BUTTONS = "⇤◀▶⇥▷❚"  # what player.js writes on its buttons

# [glyph, px on screen, drawn as the empty box] of each text that is a glyph, in document order,
# then of each button glyph in a player's button
PROBE = """([glyphs, buttons]) => {
  const draw = (ch, font) => {
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = 48;
    const context = canvas.getContext('2d');
    context.font = font;
    context.fillText(ch, 12, 32);
    return context.getImageData(0, 0, 48, 48).data.join();
  };
  const probe = (ch, el, scale) => {
    const style = getComputedStyle(el), font = `${style.fontSize} ${style.fontFamily}`;
    return [ch, parseFloat(style.fontSize) * scale, draw(ch, font) === draw('\\u0378', font)];
  };
  const texts = [...document.querySelectorAll('svg text')].filter((t) => glyphs.includes(t.textContent.trim()))
    .map((t) => probe(t.textContent.trim(), t, t.getScreenCTM().a));
  const button = document.querySelector('.bv-player button');
  return [...texts, ...[...buttons].map((ch) => probe(ch, button, 1))];
}"""


def views() -> list[str]:
    """The chain and mapping views at every step of a run with shared prefixes, in both languages."""
    sim = Simulator(num_blocks=12, block_size=4)
    sim.add("the cat sat on the mat", max_tokens=6)
    sim.add("the cat sat on a hat", max_tokens=6)
    sim.run()
    return [render_view(sim, view, step, lang=lang) for lang in ("en", "zh") for step in range(sim.last_step + 1)
            for view in ("chain", "mapping")]


def test_the_glyphs_are_drawn_from_the_shipped_fonts_at_14_px(chromium):
    assert all(ch in PLAYER.read_text(encoding="utf-8") for ch in BUTTONS)
    from playwright.sync_api import sync_playwright
    css = (PLAYER.parent / "views.css").read_text(encoding="utf-8")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=FLAGS)
        try:
            page = browser.new_page()
            page.set_content(f'<!DOCTYPE html><meta charset="utf-8"><style>{css}</style><body>' + "".join(views())
                             + '<div class="bv-player"><button>▶</button></div></body>')
            probes = page.evaluate(PROBE, [GLYPHS, BUTTONS])
            missing = page.evaluate(PROBE, [[], "⏵"])
        finally:
            browser.close()
    assert missing == [["⏵", 16, True]]  # the check itself: a glyph Debian's fonts lack (U+23F5)
    texts = probes[:-len(BUTTONS)]
    assert {s.glyph for s in OUTCOME_STYLES.values()} <= {ch for ch, _, _ in texts}  # the chain's legend
    assert min(size for _, size, _ in texts) >= 14
    assert [ch for ch, _, box in probes if box] == []
