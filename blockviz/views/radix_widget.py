"""The radix-tree view of a session under policy "sglang": show(sim, "radix"). A live picture of
views/render_radix.py: the tree has no recording yet (policies/sglang.py), so the widget draws the
tree as it stands and redraws on refresh(), after the session steps."""
import ipywidgets

from blockviz.radix.radix_cache import RadixCache
from blockviz.views.render_radix import MAX_NODES, render_radix


def tree_of(session) -> RadixCache:
    """The RadixCache a session's scheduler decides with; ValueError for another policy."""
    tree = getattr(session.scheduler.block_manager, "tree", None)
    if not isinstance(tree, RadixCache):
        raise ValueError("the radix view draws SGLang's tree: open a session with policy='sglang' "
                         "(e.g. Simulator(policy='sglang', record=False))")
    return tree


class RadixView(ipywidgets.HTML):
    """RadixView(session, lang="en", max_nodes=300): the tree now; refresh() redraws it."""

    def __init__(self, session, lang: str = "en", max_nodes: int = MAX_NODES, **kwargs):
        self.tree, self.session, self.lang, self.max_nodes = tree_of(session), session, lang, max_nodes
        super().__init__(**kwargs)
        self.refresh()

    def refresh(self) -> None:
        decode = getattr(self.session, "tokenizer", None)
        self.value = render_radix(self.tree, lang=self.lang, max_nodes=self.max_nodes,
                                  decode=decode.decode if decode is not None else None,
                                  step=self.session.num_steps)
