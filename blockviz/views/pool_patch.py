"""What a page showing one pool picture must change to show another: the widget sends this after
each step instead of the whole pool, so the browser touches only the cells that changed."""
import re
from functools import lru_cache
from html import unescape

from blockviz.views.render_pool import PoolPicture

# the markup our renderers write (views/svg.py): tags with double-quoted attributes, and text
TOKEN = re.compile(r'<(/?)([\w:-]+)([^>]*?)(/?)>|([^<]+)')
ATTR = re.compile(r'([\w:-]+)="([^"]*)"')


@lru_cache(maxsize=8192)  # a cell's body recurs from step to step: a large pool's cells mostly keep theirs
def shape(body: str) -> tuple[tuple, tuple[tuple[int, str, str], ...]]:
    """A cell body's elements without their values, and the values: (element index in document
    order, attribute name or "" for the text of an element that holds only text, value as written)."""
    skeleton, values, open_at, k = [], [], [], -1
    tokens = TOKEN.findall(body)
    for n, (end, name, attrs, empty, text) in enumerate(tokens):
        if text:  # between two tags (the pattern joins text): the element's whole text when they open and close it
            sole = 0 < n < len(tokens) - 1 and not (tokens[n - 1][0] or tokens[n - 1][3]) and tokens[n + 1][0]
            if sole:
                values.append((open_at[-1], "", text))
            skeleton.append("" if sole else text)
        elif end:
            open_at.pop()
            skeleton.append("/" + name)
        else:
            k += 1
            pairs = ATTR.findall(attrs)
            skeleton.append((name, *(a for a, _ in pairs)))
            values.extend((k, a, v) for a, v in pairs)
            if not empty:
                open_at.append(k)
    return tuple(skeleton), tuple(values)


def body_edits(old: str, new: str) -> list[list] | None:
    """[element index, attribute name ("" for its text), value] for each value that changed when
    `new` has the elements of `old` with the same attributes in the same order; else None."""
    (old_skeleton, old_values), (new_skeleton, new_values) = shape(old), shape(new)
    if old_skeleton != new_skeleton:
        return None
    return [[k, name, unescape(value)] for (k, name, value), (_, _, was) in zip(new_values, old_values) if value != was]


def pool_patch(shown: PoolPicture, new: PoolPicture) -> dict:
    """For two pictures of the same pool: "root" (the <svg> element's attributes), "head",
    "touched" and "legend" (inner markup) when they changed; "cells": [key, attributes or None,
    contents or None] for each cell kept that changed, where contents are the cell's inner markup
    or, when only values changed (its elements and their attributes' names stay), the changes
    (body_edits); and when a large pool's folded runs moved, "remove": the keys of cells to drop
    and "insert": [key, attributes, inner markup, key of the kept cell to insert it before, or None
    for the end], in block order. A cell's attributes are all sent when any changed; a page sets
    them and drops any others."""
    old = {cell.key: cell for cell in shown.cells}
    cells, insert = [], []
    before = None  # the next kept cell: the page has it already
    for cell in reversed(new.cells):
        was = old.pop(cell.key, None)
        if was is None:
            insert.append([cell.key, cell.attrs, cell.body, before])
            continue
        before = cell.key
        if was != cell:
            body = None
            if was.body != cell.body:
                edits = body_edits(was.body, cell.body)
                body = cell.body if edits is None else edits
            cells.append([cell.key, None if was.attrs == cell.attrs else cell.attrs, body])
    patch: dict = {"cells": cells[::-1]}
    if old:  # what is left was not kept
        patch["remove"] = list(old)
    if insert:
        patch["insert"] = insert[::-1]
    if shown.root != new.root:
        patch["root"] = new.root
    if shown.head != new.head:
        patch["head"] = new.head
    if shown.touched != new.touched:
        patch["touched"] = new.touched
    if shown.legend != new.legend:
        patch["legend"] = new.legend
    return patch
