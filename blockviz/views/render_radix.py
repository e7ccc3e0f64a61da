"""SGLang's radix tree (blockviz/radix/) as SVG: a tree listing, one row per node.

Each row is one node: the tokens of the edge above it (shortened) and their count, its lock count
(lock_ref: the running requests whose path passes through it; a locked node is never evicted), and,
for an evictable leaf (lock 0, no children), its place in the eviction order: "evict #1" is the leaf
RadixCache.evict frees first under the cache's policy. The order is that of evict's heap over the
current leaves, (policy priority, node); a parent that becomes a leaf during an eviction joins later.

A GPU-sized pool holds tens of thousands of nodes: at most max_nodes rows are drawn, in preorder
(a parent before its children, so every drawn node's parent is drawn too) with a note of how many
are left out, as the pool view folds its blocks. With `focus` (node ids: a request's path, the
nodes a step touched) those nodes and the path from the root to each are drawn whatever their place,
other nodes in preorder while rows are left, and each run of undrawn nodes becomes one row saying
how many it hides, in the place it would take. Every row carries data-* attributes with the node's
id, lock count and eviction rank, so tests and pages read the picture, not its pixels.

`cache` is a live RadixCache or a recorded step's tree (Snapshot.tree, recording/radix_tree.py:
RecordedTree, with the same attribute names), so the view draws the tree at any step of a recording.
"""
from collections.abc import Iterable
from itertools import islice
from typing import Callable, Iterator

from blockviz.i18n import t
from blockviz.radix.radix_cache import RadixCache, TreeNode
from blockviz.recording.events import LeafEvicted, LockChanged, NodeInserted, NodeSplit, NodesHit, NodeTouched
from blockviz.views.layout import NOTEBOOK, Layout
from blockviz.views.svg import clip, svg_document, text, text_width, visible
from blockviz.views.theme import OKABE_ITO

MAX_NODES = NOTEBOOK.radix_rows  # rows drawn; a 10,000-node tree renders in milliseconds with this cap (docs/benchmarks.md)
ROW_H, INDENT, LEFT, TOP = 20, 16, 12, 56  # in the notebook's layout (a layout draws them Layout.px() long)
SHOWN_TOKENS = 6      # tokens written on an edge before "…"
LABEL_COLUMNS = 28    # display columns of a decoded edge

LOCKED, EVICTABLE = OKABE_ITO["sky_blue"], OKABE_ITO["orange"]

Decode = Callable[[list[int]], str]


def preorder(cache: RadixCache) -> Iterator[tuple[TreeNode, int]]:
    """(node, depth) below the root, parents first, children in order of their edge's tokens.
    Iterative: a long chain of single-child nodes must not hit Python's recursion limit."""
    stack = [(child, 1) for child in reversed(ordered(cache.root_node))]
    while stack:
        node, depth = stack.pop()
        yield node, depth
        stack.extend((child, depth + 1) for child in reversed(ordered(node)))


def ordered(node: TreeNode) -> list[TreeNode]:
    return sorted(node.children.values(), key=lambda c: c.key.token_ids)   # arrays compare token by token


def node_count(cache: RadixCache) -> int:
    """Nodes below the root; unsorted, as only the drawn ones need an order."""
    count, stack = 0, list(cache.root_node.children.values())
    while stack:
        node = stack.pop()
        count += 1
        stack.extend(node.children.values())
    return count


def touched_nodes(events: Iterable) -> set[int]:
    """The nodes a step's events name (walked, split, inserted, hit, locked or unlocked) that are
    still in the tree after it, by their recording numbers: what a stepped view keeps in sight (an
    evicted leaf is gone; the root, 0, has no row)."""
    nodes, gone = set(), set()
    for event in events:
        if isinstance(event, (NodeTouched, NodeInserted, LockChanged)):
            nodes.add(event.node)
        elif isinstance(event, NodeSplit):
            nodes.update((event.node, event.new))
        elif isinstance(event, NodesHit):
            nodes.update(event.nodes)
        elif isinstance(event, LeafEvicted):
            gone.add(event.node)
    return nodes - gone - {0}


def subtree_size(node: TreeNode) -> int:
    """`node` and every node below it."""
    count, stack = 0, [node]
    while stack:
        node = stack.pop()
        count += 1
        stack.extend(node.children.values())
    return count


def with_ancestors(cache: RadixCache, focus: Iterable[int]) -> set[int]:
    """The ids of the focus nodes in the tree and of every node on the path from the root to them
    (the root not included); ids not in the tree are left out."""
    wanted, kept, found = set(focus), set(), 0
    stack = list(cache.root_node.children.values())
    while stack and found < len(wanted):
        node = stack.pop()
        stack.extend(node.children.values())
        if node.id in wanted:
            found += 1
            while node is not cache.root_node and node.id not in kept:
                kept.add(node.id)
                node = node.parent
    return kept


Row = tuple[TreeNode | None, int, int]   # (node, depth, 0) or (None, depth, nodes a folded run hides)


def focused_rows(cache: RadixCache, keep: set[int], max_nodes: int) -> list[Row]:
    """The rows in preorder: every node in `keep` (closed under parents), other nodes whose parent is
    drawn while fewer than max_nodes rows are drawn in all, and one row for each run of the others
    (a node left out hides its whole subtree)."""
    rows: list[Row] = []
    spare = max(0, max_nodes - len(keep))
    hidden = [0, 0]   # the current run of undrawn nodes: how many, at the depth of its first
    stack = [iter([(child, 1) for child in ordered(cache.root_node)])]
    while stack:
        item = next(stack[-1], None)
        if item is None:
            stack.pop()
            continue
        node, depth = item
        if node.id in keep or spare > 0:
            spare -= node.id not in keep
            if hidden[0]:
                rows.append((None, hidden[1], hidden[0]))
                hidden = [0, 0]
            rows.append((node, depth, 0))
            stack.append(iter([(child, depth + 1) for child in ordered(node)]))
        else:
            hidden = [hidden[0] + subtree_size(node), hidden[1] or depth]
    if hidden[0]:
        rows.append((None, hidden[1], hidden[0]))
    return rows


def fold_row(depth: int, n: int, y: float, lang: str, layout: Layout) -> tuple[str, float]:
    """A run of undrawn nodes, in their place: how many."""
    label = t("radix.folded", lang, n=n)
    x = layout.px(LEFT + depth * INDENT)
    return (f'<g class="bv-radix-fold" data-depth="{depth}" data-hidden="{n}">'
            f'{text(x + layout.px(5), y, label, layout.small, cls="bv-muted")}</g>',
            x + text_width(label, layout.small) + layout.px(10))


def eviction_order(cache: RadixCache) -> dict[int, int]:
    """node id -> 1-based rank among the evictable leaves, in the order RadixCache.evict pops them."""
    priority = cache.eviction_strategy.get_priority
    leaves = sorted(cache.evictable_leaves, key=lambda node: (priority(node), node))
    return {node.id: rank for rank, node in enumerate(leaves, 1)}


def edge_label(tokens: list[int], decode: Decode | None) -> str:
    """The edge's tokens, shortened: decoded text when a decoder is given, else the first ids."""
    if decode is not None:
        return "“" + clip(visible(decode(tokens)), LABEL_COLUMNS) + "”"
    shown = " ".join(str(x) for x in tokens[:SHOWN_TOKENS])
    return f"[{shown}{' …' if len(tokens) > SHOWN_TOKENS else ''}]"


def row_label(node: TreeNode, rank: int | None, decode: Decode | None, lang: str, layout: Layout) -> tuple[str, float]:
    """A node's words (its edge, token count, lock count, eviction rank) and the width of their box."""
    words = [edge_label([int(x) for x in node.key.token_ids], decode), t("radix.tokens", lang, n=len(node.key)),
             t("radix.lock", lang, n=node.lock_ref)]
    if rank is not None:
        words.append(t("radix.evict", lang, n=rank))
    label = " · ".join(words)
    return label, text_width(label, layout.text) + layout.px(10)


def row(node: TreeNode, depth: int, y: float, rank: int | None, decode: Decode | None, lang: str,
        layout: Layout = NOTEBOOK, labels: dict | None = None) -> tuple[str, float]:
    """One node's row and its right edge. labels: render_radix's."""
    px = layout.px
    n = len(node.key)
    key = (node.id, n, node.lock_ref, rank)
    drawn = None if labels is None else labels.get(key)
    if drawn is None:
        drawn = row_label(node, rank, decode, lang, layout)
        if labels is not None:
            labels[key] = drawn
    label, width = drawn
    x = px(LEFT + depth * INDENT)
    hue = LOCKED if node.lock_ref > 0 else EVICTABLE if rank is not None else ""
    box = (f'<rect x="{x:g}" y="{y - px(14):g}" width="{width:g}" height="{px(ROW_H - 3):g}" rx="3" fill="{hue}" '
           f'fill-opacity="0.3" stroke="{hue}"/>' if hue else "")
    elbow = (f'<path d="M{x - px(INDENT - 4):g} {y - px(ROW_H - 2):g}V{y - px(5):g}H{x:g}" class="bv-line" fill="none"/>'
             if depth > 1 else "")
    attrs = (f'data-node="{node.id}" data-depth="{depth}" data-lock="{node.lock_ref}" '
             f'data-tokens="{n}"' + (f' data-evict-rank="{rank}"' if rank is not None else ""))
    return f'<g class="bv-radix-node" {attrs}>{elbow}{box}{text(x + px(5), y, label, layout.text)}</g>', x + width


def render_radix(cache: RadixCache, *, lang: str = "en", max_nodes: int | None = None,
                 decode: Decode | None = None, step: int = 0, layout: Layout = NOTEBOOK,
                 focus: Iterable[int] | None = None, labels: dict | None = None) -> str:
    """The tree as SVG, at most max_nodes node rows (default: the layout's radix_rows). decode: token
    ids -> text, for edges written as text instead of ids (a tokenizer's decode). focus: node ids
    drawn with their path from the root whatever the cap, the rest folded (see the module's doc).
    labels: a dict a caller keeps while it draws one tree's steps with one decode, language and
    layout (a widget): each row's words and their width by (node id, edge length, lock count,
    eviction rank); the first two name the edge's tokens there (a split keeps a node's id and the
    tail of its edge), so a long edge is not decoded and measured again at every step."""
    max_nodes = layout.radix_rows if max_nodes is None else max_nodes
    px, left, row_h = layout.px, layout.px(LEFT), layout.px(ROW_H)
    rank = eviction_order(cache)
    count = node_count(cache)
    tokens = cache.evictable_size() + cache.protected_size()   # = total_size(), without its walk
    title = t("radix.title", lang, n=count, tokens=tokens, evictable=cache.evictable_size(),
              protected=cache.protected_size())
    note = t("radix.note", lang, policy=cache.eviction_policy)
    parts, y = [], px(TOP)
    width = max(text_width(title, layout.title), text_width(note, layout.small)) + 2 * left
    if focus is None:
        rows: list[Row] = [(node, depth, 0) for node, depth in islice(preorder(cache), max_nodes)]
    else:
        rows = focused_rows(cache, with_ancestors(cache, focus), max_nodes)
    for node, depth, hidden in rows:
        if node is None:
            markup, right = fold_row(depth, hidden, y + px(14), lang, layout)
        else:
            markup, right = row(node, depth, y + px(14), rank.get(node.id), decode, lang, layout, labels)
        parts.append(markup)
        width, y = max(width, right + left), y + row_h
    if count == 0:
        parts.append(text(left, y + px(14), t("radix.empty", lang), layout.text, cls="bv-muted"))
        y += row_h
    if count > max_nodes and focus is None:
        parts.append(text(left, y + px(14), t("radix.more", lang, n=count - max_nodes, cap=max_nodes), layout.small,
                          cls="bv-muted"))
        y += row_h
    head = (text(left, px(20), title, layout.title, bold=True)
            + text(left, px(38), note, layout.small, cls="bv-muted"))
    return svg_document(width, y + px(8), head + "".join(parts), view="radix", step=step, label=title)
