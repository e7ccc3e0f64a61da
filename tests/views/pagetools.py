"""What the pool widget's page does with a patch (POOL_ESM's applyPatch), on pictures instead of DOM nodes."""
import json

from blockviz.views.render_pool import Cell, PoolPicture


def apply_patch(shown: PoolPicture, patch: dict) -> PoolPicture:
    """The picture a page shows after applying `patch` (as sent: through JSON) to `shown`."""
    patch = json.loads(json.dumps(patch))
    cells = list(shown.cells)
    for block_id, attrs, body in patch["cells"]:
        old = cells[block_id]
        cells[block_id] = Cell(old.attrs if attrs is None else attrs, old.body if body is None else body)
    return PoolPicture(patch.get("root", shown.root), patch.get("head", shown.head), tuple(cells),
                       patch.get("legend", shown.legend))
