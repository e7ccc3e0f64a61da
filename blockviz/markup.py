"""The one way text reaches HTML or SVG: labels, prompts, token text, exercise ids and answers,
request text in the demo, trace contents, and the interface strings around them.

esc() makes any value safe as an element's text or a quoted attribute value. markdown_html()
renders Markdown (exercise prompts, feedback, hints) with raw HTML turned off, so a `<tag>` in it,
written by a translator or typed by a learner and echoed back, shows as text; markdown-it also
refuses javascript: and data: links. Views import esc from views/svg.py, which re-exports it.
"""
from html import escape

from markdown_it import MarkdownIt

_MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table")


# XML 1.0 forbids control characters even as entities, and real tokenizers produce them: each
# shows as its Unicode control picture (␀, ␛, ...) instead of breaking the page.
CONTROL_PICTURES = {c: 0x2400 + c for c in range(32) if c not in (9, 10, 13)} | {0x7F: 0x2421}


def esc(value) -> str:
    """`value` as text: & < > " ' become entities (quote=True, so attribute values are safe too)
    and control characters their pictures."""
    return escape(str(value).translate(CONTROL_PICTURES), quote=True)


def markdown_html(markdown: str) -> str:
    """HTML of `markdown`; any HTML written inside it is escaped, not passed through."""
    return _MARKDOWN.render(markdown)
