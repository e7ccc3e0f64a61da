"""Draw the SVG our renderers emit onto a matplotlib figure, so any view exports to PNG or GIF
without cairo or a browser.

Only the subset the renderers use is understood: rect, text, line and paths (absolute M, L, Z and
circular arcs A: the pool's state glyphs, blockviz/views/glyphs.py, its notch and the dashed
outlines of the blocks changed), coloured by attributes or by theme classes (drawn with
their light fallbacks).
"""
import re
from math import atan2, ceil, cos, hypot, pi, sin, sqrt
from xml.etree import ElementTree

from matplotlib.figure import Figure
from matplotlib.patches import PathPatch, Rectangle
from matplotlib.path import Path

from blockviz.views.theme import THEME, matplotlib_fonts, theme_fallback

NS = "{http://www.w3.org/2000/svg}"


def _paint(element, prop: str) -> str:
    """The element's fill or stroke: its attribute, else its theme class, else none."""
    value = element.get(prop)
    if value:
        return value
    cls = element.get("class", "")
    if cls in THEME:
        cls_prop, colour = theme_fallback(cls)
        if cls_prop == prop:
            return colour
    return "none" if prop == "stroke" or cls in THEME else "#000000"


def _num(element, name: str, default: float = 0.0) -> float:
    return float(element.get(name, default))


def _outline(element, pt: float) -> dict:
    """A shape's fill and its stroke (width, dashes) as matplotlib patch arguments."""
    fill, stroke = _paint(element, "fill"), _paint(element, "stroke")
    width = _num(element, "stroke-width", 1)
    dash = element.get("stroke-dasharray")  # matplotlib scales dashes by the line width
    return {"facecolor": fill, "edgecolor": stroke, "linewidth": width * pt if stroke != "none" else 0,
            "linestyle": (0, [float(v) / width for v in dash.split()]) if dash else "solid"}


NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?")


def arc(start: tuple[float, float], r: float, large: bool, sweep: bool, end: tuple[float, float]) -> list:
    """Points along SVG's circular arc (A with rx = ry, no rotation) from `start` to `end`, end
    included: the arc of the circle through both that `large` and `sweep` pick (SVG's rules)."""
    (x0, y0), (x1, y1) = start, end
    hx, hy = (x0 - x1) / 2, (y0 - y1) / 2  # half the chord
    half = hypot(hx, hy)
    if half == 0:
        return []
    r = max(r, half)  # a radius too small to reach grows until it does
    reach = (1 if large != sweep else -1) * sqrt(r * r - half * half) / half
    cx, cy = (x0 + x1) / 2 + reach * hy, (y0 + y1) / 2 - reach * hx
    a0 = atan2(y0 - cy, x0 - cx)
    span = atan2(y1 - cy, x1 - cx) - a0
    if sweep and span <= 0:  # sweep: the way angles grow, clockwise on the page (y points down)
        span += 2 * pi
    elif not sweep and span >= 0:
        span -= 2 * pi
    n = max(2, ceil(abs(span) / (pi / 32)))
    return [(cx + r * cos(a0 + span * k / n), cy + r * sin(a0 + span * k / n)) for k in range(1, n + 1)]


def path_of(el) -> Path:
    """A path element's outline as matplotlib's Path: one polygon for each M, filled where its
    outlines wind round a point (SVG's default)."""
    vertices, codes, first, here = [], [], (0.0, 0.0), (0.0, 0.0)
    for command, args in re.findall(r"([MLAZ])([^MLAZ]*)", el.get("d", "")):
        numbers = [float(v) for v in NUMBER.findall(args)]
        if command == "Z":
            vertices.append(first)
            codes.append(Path.CLOSEPOLY)
            here = first
            continue
        if command == "A":
            points = []
            for k in range(0, len(numbers), 7):
                r, _, _, large, sweep, x, y = numbers[k:k + 7]
                points += arc(points[-1] if points else here, r, bool(large), bool(sweep), (x, y))
        else:
            points = list(zip(numbers[::2], numbers[1::2]))
        if command == "M":
            first = points[0]
            codes += [Path.MOVETO] + [Path.LINETO] * (len(points) - 1)
        else:
            codes += [Path.LINETO] * len(points)
        vertices += points
        here = points[-1] if points else here
    return Path(vertices, codes)


def svg_size(svg: str) -> tuple[float, float]:
    root = ElementTree.fromstring(svg)
    return float(root.get("width")), float(root.get("height"))


def draw_svg(fig: Figure, svg: str, width: float | None = None, height: float | None = None):
    """Draw `svg` onto `fig` in pixel coordinates (1 SVG px = 1 figure pixel at the figure's dpi)."""
    root = ElementTree.fromstring(svg)
    width = width or float(root.get("width"))
    height = height or float(root.get("height"))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)
    ax.set_axis_off()
    pt = 72 / fig.dpi  # SVG sizes are pixels, matplotlib's are points
    fonts = matplotlib_fonts("DejaVu Sans Mono")
    for el in root.iter():
        tag = el.tag.removeprefix(NS)
        if tag == "rect":
            ax.add_patch(Rectangle((_num(el, "x"), _num(el, "y")), _num(el, "width"), _num(el, "height"),
                                   **_outline(el, pt)))
        elif tag == "line":
            ax.plot([_num(el, "x1"), _num(el, "x2")], [_num(el, "y1"), _num(el, "y2")],
                    color=_paint(el, "stroke"), linewidth=_num(el, "stroke-width", 1) * pt)
        elif tag == "path":
            ax.add_patch(PathPatch(path_of(el), **_outline(el, pt)))
        elif tag == "text" and el.text:
            anchor = {"start": "left", "middle": "center", "end": "right"}[el.get("text-anchor", "start")]
            ax.text(_num(el, "x"), _num(el, "y"), el.text, fontsize=_num(el, "font-size", 11) * pt,
                    ha=anchor, va="baseline", color=_paint(el, "fill"), family=fonts,
                    fontweight=el.get("font-weight", "normal"))
    return ax


def svg_figure(svg: str, dpi: float = 100) -> Figure:
    width, height = svg_size(svg)
    fig = Figure(figsize=(width / dpi, height / dpi), dpi=dpi)
    draw_svg(fig, svg)
    return fig
