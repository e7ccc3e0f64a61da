"""Reading the SVG the renderers emit."""
from xml.etree import ElementTree


def parse(svg: str) -> ElementTree.Element:
    return ElementTree.fromstring(svg)


def with_attr(root: ElementTree.Element, name: str) -> list[ElementTree.Element]:
    return [el for el in root.iter() if name in el.attrib]


def texts(root: ElementTree.Element) -> list[str]:
    return [el.text for el in root.iter() if el.tag.endswith("text") and el.text]
