"""Draw the SVG our renderers emit onto a matplotlib figure, so any view exports to PNG or GIF
without cairo or a browser.

Only the subset the renderers use is understood: rect, text, line, circle (the pool's state glyphs,
blockviz/views/glyphs.py) and polygon paths (M/L/Z, one polygon per M: filled glyphs, or the pool's
dashed outlines of the blocks changed), coloured by attributes or by theme classes (drawn with their
light fallbacks).
"""
import re
from xml.etree import ElementTree

from matplotlib.figure import Figure
from matplotlib.patches import Circle, Polygon, Rectangle

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
        elif tag == "circle":
            edge = _paint(el, "stroke")
            ax.add_patch(Circle((_num(el, "cx"), _num(el, "cy")), _num(el, "r"), facecolor=_paint(el, "fill"),
                                edgecolor=edge, linewidth=_num(el, "stroke-width", 1) * pt if edge != "none" else 0))
        elif tag == "path":
            for part in el.get("d", "").split("M")[1:]:
                points = [(float(x), float(y)) for x, y in re.findall(r"([-\d.]+)[ ,]([-\d.]+)", part)]
                ax.add_patch(Polygon(points, closed=True, **_outline(el, pt)))
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
