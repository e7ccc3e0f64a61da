"""SGLang's radix tree as the recording keeps it: a plain tree rebuilt from the tree's events.

Under policy "sglang" the instrumented tree (recording/instrumented_radix.py) says what each of its
operations did: a leaf inserted, a node split, a path touched (access times), hits counted, a lock
changed along a path, a leaf evicted. `RecordedTree.apply` does the same to a plain tree, and the
Recorder writes each node it changed into the History as a `NodeView` (one Versions per node, like
a block's), so the tree at any step is the nodes alive then (`RecordedTree.from_views`).

A RecordedTree has the attribute names of SGLang's RadixCache and TreeNode that a reader uses
(root_node, children, key, lock_ref, last_access_time, evictable_leaves, eviction_strategy, ...),
so views/render_radix.py draws a recorded step or a live tree alike. Nodes are named by their
number in the tree (the root 0, then in creation order) and times by the tree's own ticks, so a
replay, a loaded trace and the live run give the same picture. Priority is not kept: the engine
inserts with priority 0, so every node's is 0.
"""
from array import array
from collections.abc import Iterable
from dataclasses import dataclass

from blockviz.radix.radix_cache import RadixCache, RadixKey
from blockviz.radix.utils import get_eviction_strategy
from blockviz.recording import events as ev


@dataclass(frozen=True, slots=True)
class NodeView:
    """One node at one step."""
    node_id: int
    parent: int                  # -1: the root
    token_ids: tuple[int, ...]   # its edge's tokens
    pages: tuple[int, ...]       # the pages holding them (one per page_size tokens)
    lock_ref: int
    last_access_time: int
    creation_time: int
    hit_count: int


class RecordedNode:
    """A node of a RecordedTree, with TreeNode's attribute names."""
    __slots__ = ("id", "parent", "children", "key", "token_ids", "pages", "lock_ref", "last_access_time",
                 "creation_time", "hit_count")
    priority = 0
    evicted = False

    def __init__(self, node_id: int, parent: "RecordedNode | None", token_ids: tuple[int, ...], pages: tuple[int, ...],
                 lock_ref: int, last_access_time: int, creation_time: int, hit_count: int):
        self.id, self.parent, self.children = node_id, parent, {}
        self.set_edge(token_ids, pages)
        self.lock_ref, self.hit_count = lock_ref, hit_count
        self.last_access_time, self.creation_time = last_access_time, creation_time

    def set_edge(self, token_ids: tuple[int, ...], pages: tuple[int, ...]):
        self.token_ids, self.pages = token_ids, pages
        self.key = RadixKey(array("q", token_ids))

    def __lt__(self, other: "RecordedNode") -> bool:   # TreeNode's: the eviction heap's tie-break
        return self.last_access_time < other.last_access_time

    def view(self) -> NodeView:
        return NodeView(self.id, -1 if self.parent is None else self.parent.id, self.token_ids, self.pages,
                        self.lock_ref, self.last_access_time, self.creation_time, self.hit_count)


class RecordedTree:
    """The tree at one step, or the Recorder's tree as the events rebuild it."""

    def __init__(self, page_size: int, eviction_policy: str, root_times: tuple[int, int] = (1, 2)):
        self.page_size = page_size
        self.eviction_policy = eviction_policy
        self.eviction_strategy = get_eviction_strategy(eviction_policy)
        self.root_node = RecordedNode(0, None, (), (), 1, root_times[0], root_times[1], 0)
        self.nodes: dict[int, RecordedNode] = {0: self.root_node}

    # --- what a reader of a RadixCache reads ------------------------------------------------------

    @property
    def evictable_leaves(self) -> set[RecordedNode]:
        """Unlocked nodes without children (RadixCache._update_leaf_status's rule)."""
        return {n for n in self.nodes.values() if n.lock_ref == 0 and not n.children}

    def evictable_size(self) -> int:
        return sum(len(n.token_ids) for n in self.nodes.values() if n.lock_ref == 0)

    def protected_size(self) -> int:
        return sum(len(n.token_ids) for n in self.nodes.values() if n.lock_ref > 0 and n is not self.root_node)

    def views(self) -> list[NodeView]:
        return [n.view() for n in self.nodes.values()]

    def plain(self) -> tuple:
        """Everything the tree says, as plain values (for comparisons)."""
        return tuple(sorted((n.view() for n in self.nodes.values()), key=lambda v: v.node_id))

    # --- built from a step's nodes ----------------------------------------------------------------

    @classmethod
    def from_views(cls, views: Iterable[NodeView], page_size: int, eviction_policy: str) -> "RecordedTree":
        tree = cls(page_size, eviction_policy)
        views = sorted(views, key=lambda v: v.node_id)   # a parent is older than its children... except after a split
        nodes = {v.node_id: RecordedNode(v.node_id, None, v.token_ids, v.pages, v.lock_ref, v.last_access_time,
                                         v.creation_time, v.hit_count) for v in views}
        for v in views:
            if v.parent != -1:
                node, parent = nodes[v.node_id], nodes[v.parent]
                node.parent = parent
                parent.children[node.key.child_key(page_size)] = node
        tree.nodes = nodes
        tree.root_node = nodes[0]
        return tree

    # --- rebuilt from the tree's events -----------------------------------------------------------

    def apply(self, e: ev.Event) -> list[int]:
        """Do what the event says the live tree did; returns the ids of the nodes it changed."""
        nodes, ps = self.nodes, self.page_size
        kind = type(e)
        if kind is ev.NodeTouched:
            return [n.id for n in self._path(nodes[e.node], set_time=e.time)]
        if kind is ev.LockChanged:
            changed = []
            for n in self._path(nodes[e.node]):
                if n is not self.root_node:
                    n.lock_ref += e.delta
                    changed.append(n.id)
            return changed
        if kind is ev.NodesHit:
            for i in e.nodes:
                nodes[i].hit_count += 1
            return list(e.nodes)
        if kind is ev.NodeInserted:
            parent = nodes[e.parent]
            node = nodes[e.node] = RecordedNode(e.node, parent, e.token_ids, e.pages, 0, e.accessed, e.created,
                                                e.hit_count)
            parent.children[node.key.child_key(ps)] = node
            return [e.node]
        if kind is ev.NodeSplit:
            child = nodes[e.node]
            parent, n = child.parent, e.length // ps
            new = nodes[e.new] = RecordedNode(e.new, parent, child.token_ids[:e.length], child.pages[:n],
                                              child.lock_ref, e.accessed, e.created, child.hit_count)
            parent.children[child.key.child_key(ps)] = new
            child.set_edge(child.token_ids[e.length:], child.pages[n:])
            child.parent = new
            new.children[child.key.child_key(ps)] = child
            return [e.node, e.new]
        if kind is ev.LeafEvicted:
            node = nodes.pop(e.node)
            assert not node.children and node.lock_ref == 0, f"node {e.node} is not an evictable leaf"
            del node.parent.children[node.key.child_key(ps)]
            return [e.node]
        raise ValueError(f"not a tree event: {e.kind!r}")

    def _path(self, node: RecordedNode, set_time: int | None = None) -> list[RecordedNode]:
        """`node` and every node above it, the root last."""
        path = []
        while node is not None:
            if set_time is not None:
                node.last_access_time = set_time
            path.append(node)
            node = node.parent
        return path


def views_of(cache: RadixCache) -> list[NodeView]:
    """The nodes of a live RadixCache as NodeViews: named by their recording number when the tree
    is the recording's (instrumented_radix.py), else by TreeNode.id; times as their rank (1, 2, ...),
    which keeps every comparison an eviction strategy makes."""
    nodes, stack = [], [cache.root_node]
    while stack:
        node = stack.pop()
        nodes.append(node)
        stack.extend(node.children.values())
    times = sorted({t for n in nodes for t in (n.last_access_time, n.creation_time)})
    rank = {t: i for i, t in enumerate(times, 1)}
    ps = cache.page_size

    def name(node) -> int:
        return getattr(node, "recording_id", node.id if node is not cache.root_node else 0)

    return [NodeView(name(n), -1 if n is cache.root_node else name(n.parent), tuple(n.key.token_ids),
                     () if n is cache.root_node else tuple(v // ps for v in n.value[::ps]),
                     n.lock_ref, rank[n.last_access_time], rank[n.creation_time], n.hit_count) for n in nodes]
