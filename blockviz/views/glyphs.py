"""The pool's state glyphs as SVG shapes instead of text: a browser lays out no text for them, which
is most of what a step that changes hundreds of cells at once used to cost it (docs/benchmarks.md,
Views). The shapes draw the characters of theme.STATE_STYLES (○ ◎ ⊘ ◔ ● ◆), which the other views
and the HTML detail still write as text, in each state's text colour.

Every glyph is one filled path, the same element with the same attributes whatever the state: a
block changing state changes the path's outline and colour in place (pool_patch.body_edits). Rings
are the area between two circles drawn in opposite directions (a path fills where its outlines wind
round a point, the SVG default), marks inside drawn in the direction of the outer circle."""
from functools import lru_cache

from blockviz.states import BlockState
from blockviz.views.theme import STATE_STYLES

BOX = 14   # a glyph's box, px: the 14 px of a text glyph (tests/views/test_legibility.py)
C, R, LINE = 7, 5.5, 1.6  # centre, radius and line width of the rings, in a box of BOX
D, W = R / 2 ** 0.5, LINE / 2 / 2 ** 0.5  # ⊘: a bar from the ring's lower left to its upper right
SLASH = [(C - D - W, C + D - W), (C + D - W, C - D - W), (C + D + W, C - D + W), (C - D + W, C + D + W)]
INNER = R - LINE / 2                      # ◔: the top right quarter inside the ring
DIAMOND = [(C, 0.6), (13.4, C), (C, 13.4), (0.6, C)]


def num(v: float) -> str:
    return f"{round(v, 2):.10g}"


def circle(x: float, y: float, r: float, clockwise: bool = True, k: float = 1) -> str:
    """A circle of radius r round the centre of the box at (x, y), as two half arcs (clockwise as the
    page shows it); k: the box's size over BOX."""
    cx, cy, r, sweep = x + C * k, num(y + C * k), r * k, int(clockwise)
    return f"M{num(cx - r)} {cy}A{num(r)} {num(r)} 0 1 {sweep} {num(cx + r)} {cy}" \
           f"A{num(r)} {num(r)} 0 1 {sweep} {num(cx - r)} {cy}Z"


def ring(x: float, y: float, r: float, k: float = 1) -> str:
    return circle(x, y, r + LINE / 2, k=k) + circle(x, y, r - LINE / 2, clockwise=False, k=k)


def polygon(x: float, y: float, points, k: float = 1) -> str:
    return "".join(f"{'L' if n else 'M'}{num(x + px * k)} {num(y + py * k)}" for n, (px, py) in enumerate(points)) + "Z"


def outline(state: BlockState, x: float, y: float, k: float = 1) -> str:
    """The outline of a state's glyph in the box whose top left is (x, y), in the page's coordinates
    (a glyph moved by a transform would cost the browser a paint property node of its own), k times
    BOX wide."""
    if state is BlockState.CACHED:  # ●
        return circle(x, y, R + LINE / 2, k=k)
    if state is BlockState.SHARED:  # ◆
        return polygon(x, y, DIAMOND, k)
    d = ring(x, y, R, k)  # ○
    if state is BlockState.CACHED_FREE:  # ◎
        d += ring(x, y, 2.4, k)
    elif state is BlockState.STALE_FREE:  # ⊘
        d += polygon(x, y, SLASH, k)
    elif state is BlockState.FILLING:  # ◔
        cx, cy, inner = x + C * k, y + C * k, INNER * k
        d += f"M{num(cx)} {num(cy)}L{num(cx)} {num(cy - inner)}A{num(inner)} {num(inner)} 0 0 1 " \
             f"{num(cx + inner)} {num(cy)}Z"
    return d


# a pool's cells sit on a grid: the same state at the same place recurs from one picture to the next
# (the designs view at 65,536 blocks, 160 moves: 5,398 glyphs drawn for 155,561 cells)
@lru_cache(maxsize=1 << 14)
def glyph(state: BlockState, x: float, y: float, size: float = BOX) -> str:
    """A state's glyph in a size × size box whose top left is (x, y)."""
    return f'<path d="{outline(state, x, y, size / BOX)}" fill="{STATE_STYLES[state].text}"/>'
