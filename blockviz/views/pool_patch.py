"""What a page showing one pool picture must change to show another: the widget sends this after
each step instead of the whole pool, so the browser touches only the blocks that changed."""
from blockviz.views.render_pool import PoolPicture


def pool_patch(shown: PoolPicture, new: PoolPicture) -> dict:
    """For two pictures of the same pool: "root" (the <svg> element's attributes), "head" and
    "legend" (inner markup) when they changed, and "cells": [block id, attributes or None, inner
    markup or None] for each block that changed. A block's attributes are all sent when any changed;
    a page sets them and drops any others, and replaces a cell's markup only when it is sent."""
    cells = [[i, None if old.attrs == cell.attrs else cell.attrs, None if old.body == cell.body else cell.body]
             for i, (old, cell) in enumerate(zip(shown.cells, new.cells)) if old != cell]
    patch: dict = {"cells": cells}
    if shown.root != new.root:
        patch["root"] = new.root
    if shown.head != new.head:
        patch["head"] = new.head
    if shown.legend != new.legend:
        patch["legend"] = new.legend
    return patch
