"""What the pool widget's page does with a patch (js/pool_patch.js's applyPatch, tested in node by
test_js.py), on pictures instead of DOM nodes: the widget tests here run without node."""
import json

from blockviz.views.render_pool import Cell, PoolPicture


def apply_patch(shown: PoolPicture, patch: dict) -> PoolPicture:
    """The picture a page shows after applying `patch` (as sent: through JSON) to `shown`."""
    patch = json.loads(json.dumps(patch))
    cells = {cell.key: cell for cell in shown.cells}  # a page's Map: key -> node
    order = [cell.key for cell in shown.cells]        # and the nodes' order in the document
    for key in patch.get("remove", []):
        del cells[key]
        order.remove(key)
    for key, attrs, body in patch["cells"]:
        old = cells[key]
        cells[key] = Cell(key, old.attrs if attrs is None else set_attributes(old.attrs, attrs),
                          old.body if body is None else body)
    for key, attrs, body, before in patch.get("insert", []):
        cells[key] = Cell(key, attrs, body)
        order.insert(len(order) if before is None else order.index(before), key)
    return PoolPicture(patch.get("root", shown.root), patch.get("head", shown.head),
                       tuple(cells[key] for key in order), patch.get("legend", shown.legend))


def set_attributes(shown: dict[str, str], attrs: dict[str, str]) -> dict[str, str]:
    """A node's attributes, in document order, after the page's setAttrs: those it keeps stay in
    place, new ones are appended."""
    kept = {name: attrs[name] for name in shown if name in attrs}
    return kept | {name: value for name, value in attrs.items() if name not in kept}
