"""The few SVG helpers the renderers share: escaping (blockviz/markup.py's esc), text width, the document frame."""
import re
from unicodedata import east_asian_width

from blockviz.markup import esc
from blockviz.views.theme import theme_css

CHAR_WIDTH = 0.6  # monospace advance, in font sizes; CJK characters take two


NEEDS_ESCAPE = re.compile("[&<>\"'\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def columns(text: str) -> int:
    if text.isascii():
        return len(text)
    return sum(2 if east_asian_width(ch) in "WF" else 1 for ch in text)


def text_width(text: str, size: float) -> float:
    return columns(text) * CHAR_WIDTH * size


def clip(text: str, max_columns: int) -> str:
    """Cut text to max_columns display columns, ending in '…' when cut."""
    if columns(text) <= max_columns:
        return text
    out, used = [], 0
    for ch in text:
        used += columns(ch)
        if used > max_columns - 1:
            break
        out.append(ch)
    return "".join(out) + "…"


def visible(text: str) -> str:
    """Make whitespace visible, so a block's exact content shows ('the␣' is not 'the')."""
    return text.replace(" ", "␣").replace("\n", "⏎").replace("\t", "⇥")


def attrs_markup(attrs: dict[str, str]) -> str:
    """name="value" pairs, values escaped: the markup of the attributes a page sets one by one."""
    # most values are numbers and state names: skip escape() for them (a pool has thousands)
    return " ".join([f'{name}="{esc(value) if NEEDS_ESCAPE.search(value) else value}"'
                     for name, value in attrs.items()])


def svg_root(width: float, height: float, *, view: str, step: int, label: str) -> dict[str, str]:
    """Attributes of a view's <svg> element: its size, `role`/`aria-label`, and `data-view` and
    `data-step` so pages and tests can tell what is shown."""
    w, h = round(width), round(height)
    return {"xmlns": "http://www.w3.org/2000/svg", "width": str(w), "height": str(h), "viewBox": f"0 0 {w} {h}",
            "role": "img", "aria-label": label, "data-view": view, "data-step": str(step)}


def background(width: float, height: float) -> str:
    return f'<rect class="bv-bg" x="0" y="0" width="{round(width)}" height="{round(height)}"/>'


def svg_document(width: float, height: float, body: str, *, view: str, step: int, label: str,
                 attrs: str = "") -> str:
    """A standalone SVG: theme classes in a <style>, a background, then `body`."""
    root = attrs_markup(svg_root(width, height, view=view, step=step, label=label))
    return f'<svg {root}{attrs}><style>{theme_css()}</style>{background(width, height)}{body}</svg>'


def text(x: float, y: float, content: str, size: float = 11, cls: str = "bv-fg", anchor: str = "start",
         bold: bool = False, fill: str = "") -> str:
    paint = f'fill="{fill}"' if fill else f'class="{cls}"'
    weight = ' font-weight="bold"' if bold else ""
    return (f'<text x="{x:g}" y="{y:g}" font-size="{size:g}" text-anchor="{anchor}" {paint}{weight}>'
            f'{esc(content)}</text>')
