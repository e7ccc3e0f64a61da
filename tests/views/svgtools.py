"""Reading the SVG the renderers emit."""
import re
from xml.etree import ElementTree


def parse(svg: str) -> ElementTree.Element:
    return ElementTree.fromstring(svg)


def with_attr(root: ElementTree.Element, name: str) -> list[ElementTree.Element]:
    return [el for el in root.iter() if name in el.attrib]


def texts(root: ElementTree.Element) -> list[str]:
    return [el.text for el in root.iter() if el.tag.endswith("text") and el.text]


def glyph_path(cell: ElementTree.Element) -> ElementTree.Element:
    """A pool cell's state glyph: its one path without a theme class (the notch has one)."""
    shapes = [el for el in cell.iter() if el.tag.split("}")[-1] == "path" and not el.get("class")]
    assert len(shapes) == 1, [el.attrib for el in shapes]
    return shapes[0]


def glyph_box(cell: ElementTree.Element) -> tuple[float, float]:
    """The top left of the box of a cell's glyph: where its outline starts, less where the outline
    of a glyph of that state in a box at (0, 0) starts."""
    from blockviz.states import BlockState
    from blockviz.views.glyphs import outline

    def start(d: str) -> tuple[float, float]:
        x, y = re.match(r"M([-\d.]+) ([-\d.]+)", d).groups()
        return float(x), float(y)
    (x, y), (x0, y0) = start(glyph_path(cell).get("d")), start(outline(BlockState(cell.get("data-state")), 0, 0))
    return x - x0, y - y0
