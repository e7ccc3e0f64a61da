"""What a page showing one pool picture must change to show another: the widget sends this after
each step instead of the whole pool, so the browser touches only the cells that changed."""
from blockviz.views.render_pool import PoolPicture


def pool_patch(shown: PoolPicture, new: PoolPicture) -> dict:
    """For two pictures of the same pool: "root" (the <svg> element's attributes), "head",
    "touched" and "legend" (inner markup) when they changed; "cells": [key, attributes or None, inner markup or
    None] for each cell kept that changed; and when a large pool's folded runs moved, "remove":
    the keys of cells to drop and "insert": [key, attributes, inner markup, key of the kept cell to
    insert it before, or None for the end], in block order. A cell's attributes are all sent when
    any changed; a page sets them and drops any others, and replaces its markup only when sent."""
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
            cells.append([cell.key, None if was.attrs == cell.attrs else cell.attrs,
                          None if was.body == cell.body else cell.body])
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
