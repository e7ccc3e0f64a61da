"""The radix-tree view of a timeline under policy "sglang": show(sim, "radix").

Over a recording (a Simulator or LLM session that records, a loaded trace) it is a stepped view
like the pool's: it draws views/render_radix.py over the tree rebuilt from the recording at its
step (Snapshot.tree, recording/radix_tree.py), so it follows a player, steps back and forth, and
opens a saved trace; in a tree of more than max_nodes rows the nodes its step touched are drawn
with their path, the rest folded (render_radix's focus). A session that does not record (record=False) has only the tree as it stands:
LiveRadixView draws that and redraws on refresh(), after the session steps.
"""
import ipywidgets

from blockviz.radix.radix_cache import RadixCache
from blockviz.views.render_radix import MAX_NODES, render_radix, touched_nodes
from blockviz.views.widgets import SvgView

REFUSED = ("the radix view draws SGLang's tree: open a session with policy='sglang' "
           "(e.g. Simulator(policy='sglang'))")


def tree_of(session) -> RadixCache:
    """The RadixCache a live session's scheduler decides with; ValueError for another policy."""
    tree = getattr(getattr(getattr(session, "scheduler", None), "block_manager", None), "tree", None)
    if not isinstance(tree, RadixCache):
        raise ValueError(REFUSED)
    return tree


def decoder(timeline):
    tokenizer = getattr(timeline, "tokenizer", None)
    return tokenizer.decode if tokenizer is not None else None


def radix_view(timeline, lang: str = "en", **options):
    """The widget show(timeline, "radix") opens: RadixView over a recording, LiveRadixView over a
    session that does not record. A blockviz.traffic replay shows its engine's tree."""
    if hasattr(timeline, "trace") and hasattr(timeline, "engine"):   # a traffic replay (views.TrafficRun)
        timeline = timeline.engine
    if getattr(timeline, "record", True) is False:
        return LiveRadixView(timeline, lang=lang, **options)
    return RadixView(timeline, lang=lang, **options)


class RadixView(SvgView):
    """RadixView(timeline, lang="en", max_nodes=300, step=None, follow=None): the tree at `step`."""

    def __init__(self, timeline, lang: str = "en", max_nodes: int = MAX_NODES, **kwargs):
        if timeline.snapshot(timeline.cursor).tree is None:
            raise ValueError(REFUSED)
        self.max_nodes = max_nodes
        super().__init__(timeline, lang, **kwargs)

    def options(self) -> tuple:
        return (self.lang, self.max_nodes)

    def draw(self, step: int) -> str:
        # the nodes the step touched stay in sight in a tree larger than max_nodes rows
        return render_radix(self.timeline.snapshot(step).tree, lang=self.lang, max_nodes=self.max_nodes,
                            decode=decoder(self.timeline), step=step, focus=touched_nodes(self.timeline.events(step)))


class LiveRadixView(ipywidgets.HTML):
    """LiveRadixView(session, lang="en", max_nodes=300): the tree now; refresh() redraws it."""

    def __init__(self, session, lang: str = "en", max_nodes: int = MAX_NODES, **kwargs):
        self.tree, self.session, self.lang, self.max_nodes = tree_of(session), session, lang, max_nodes
        super().__init__(**kwargs)
        self.refresh()

    def refresh(self) -> None:
        self.value = render_radix(self.tree, lang=self.lang, max_nodes=self.max_nodes,
                                  decode=decoder(self.session), step=self.session.num_steps)
