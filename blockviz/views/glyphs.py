"""The pool's state glyphs as SVG shapes instead of text: a browser lays out no text for them, which
is most of what a step that changes hundreds of cells at once used to cost it (docs/benchmarks.md,
Views). The shapes draw the characters of theme.STATE_STYLES (○ ◎ ⊘ ◔ ● ◆), which the other views
and the HTML detail still write as text, in each state's text colour."""
from math import cos, pi, sin

from blockviz.states import BlockState
from blockviz.views.theme import STATE_STYLES

BOX = 14   # a glyph's box, px: the 14 px of a text glyph (tests/views/test_legibility.py)
C, R, LINE = 7, 5.5, 1.6  # centre, radius, stroke of the circles in a box of BOX
# ◔'s filled quarter (top right), as points from the centre round the arc: the exports' rasteriser
# draws M/L/Z paths only
QUARTER = [(C, C)] + [(C + R * sin(pi / 2 * k / 8), C - R * cos(pi / 2 * k / 8)) for k in range(9)]
DIAMOND = [(C, 0.6), (13.4, C), (C, 13.4), (0.6, C)]


def polygon(points, x: float, y: float, ink: str) -> str:
    d = " ".join(f"{'L' if k else 'M'}{x + px:.1f} {y + py:.1f}" for k, (px, py) in enumerate(points))
    return f'<path d="{d} Z" fill="{ink}"/>'


def glyph(state: BlockState, x: float, y: float) -> str:
    """A state's glyph in a BOX × BOX box whose top left is (x, y)."""
    ink = STATE_STYLES[state].text
    cx, cy = x + C, y + C
    if state is BlockState.CACHED:  # ●
        return f'<circle cx="{cx:g}" cy="{cy:g}" r="{R + LINE / 2:g}" fill="{ink}"/>'
    if state is BlockState.SHARED:  # ◆
        return polygon(DIAMOND, x, y, ink)
    ring = f'<circle cx="{cx:g}" cy="{cy:g}" r="{R:g}" fill="none" stroke="{ink}" stroke-width="{LINE:g}"/>'  # ○
    if state is BlockState.CACHED_FREE:  # ◎
        ring += f'<circle cx="{cx:g}" cy="{cy:g}" r="2.4" fill="none" stroke="{ink}" stroke-width="{LINE:g}"/>'
    elif state is BlockState.STALE_FREE:  # ⊘
        d = R / 2 ** 0.5
        ring += (f'<line x1="{cx - d:.1f}" y1="{cy + d:.1f}" x2="{cx + d:.1f}" y2="{cy - d:.1f}" stroke="{ink}" '
                 f'stroke-width="{LINE:g}"/>')
    elif state is BlockState.FILLING:  # ◔
        ring += polygon(QUARTER, x, y, ink)
    return ring
