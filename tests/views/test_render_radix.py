"""The radix-tree picture against the tree's own state: every node drawn once with its lock count,
the evictable marks equal to the cache's evictable leaves, ranked in the order evict frees them,
token text escaped, and the cap on rows over random operation streams."""
import inspect
import random
import sys
from array import array
from types import SimpleNamespace

import pytest
from hypothesis import given, settings, strategies as st

from blockviz.radix.base_prefix_cache import EvictParams, InsertParams, MatchPrefixParams
from blockviz.radix.radix_cache import RadixCache, RadixKey
from blockviz.views.render_radix import preorder, render_radix

from tests.radix import drive
from tests.radix.sides import BLOCKVIZ
from tests.radix.streams import random_stream
from tests.views.svgtools import parse, texts


def key(*tokens: int) -> RadixKey:
    return RadixKey(array("q", tokens))


def rows(svg: str) -> list[dict[str, str]]:
    return [el.attrib for el in parse(svg).iter() if el.get("class") == "bv-radix-node"]


def sglang_example() -> tuple[RadixCache, object]:
    """SGLang's own example tree, with a request holding the path [1 2 4 5]."""
    tree = RadixCache.create_simulated(mock_allocator=drive.Allocator())
    for tokens in ([1, 2, 3], [1, 2, 3], [1, 2, 4, 5], [1, 2, 4, 5, 6, 7], [8, 9, 10, 11, 12]):
        tree.insert(InsertParams(key=key(*tokens)))
    held = tree.match_prefix(MatchPrefixParams(key=key(1, 2, 4, 5))).last_device_node
    tree.inc_lock_ref(held)
    return tree, held


def evicted_order(tree: RadixCache) -> list[list[int]]:
    """The leaves evict frees, one token budget at a time: what the picture's ranks must predict."""
    freed = []
    for _ in range(len(tree.evictable_leaves)):
        before = {n.id: [int(x) for x in n.key.token_ids] for n, _ in preorder(tree)}
        tree.evict(EvictParams(num_tokens=1))
        after = {n.id for n, _ in preorder(tree)}
        freed += [tokens for node_id, tokens in before.items() if node_id not in after]
    return freed


def test_sglangs_example_shows_locks_and_the_eviction_order():
    tree, held = sglang_example()
    drawn = rows(render_radix(tree))
    assert len(drawn) == 5
    locks = {int(r["data-node"]): int(r["data-lock"]) for r in drawn}
    assert locks == {node.id: node.lock_ref for node, _ in preorder(tree)}
    assert locks[held.id] == 1 and locks[held.parent.id] == 1     # a lock holds the whole path
    ranked = {int(r["data-node"]): int(r["data-evict-rank"]) for r in drawn if "data-evict-rank" in r}
    assert set(ranked) == {node.id for node in tree.evictable_leaves}
    tokens = {node.id: [int(x) for x in node.key.token_ids] for node, _ in preorder(tree)}
    predicted = [tokens[node_id] for node_id in sorted(ranked, key=ranked.get)]
    assert evicted_order(tree)[:len(predicted)] == predicted


def test_labels_kept_from_step_to_step_draw_what_a_first_drawing_draws():
    """render_radix(labels=) as a widget keeps them, while the tree splits, locks, unlocks and evicts."""
    tree, held = sglang_example()
    labels: dict = {}
    steps = [lambda: None, lambda: tree.insert(InsertParams(key=key(1, 2, 4, 9))),   # splits [4 5 …]
             lambda: tree.dec_lock_ref(held), lambda: tree.inc_lock_ref(held),
             lambda: tree.evict(EvictParams(num_tokens=2)), lambda: tree.dec_lock_ref(held),
             lambda: tree.insert(InsertParams(key=key(8, 9, 3)))]
    for change in steps:
        change()
        assert render_radix(tree, labels=labels, decode=str) == render_radix(tree, decode=str)


def test_labels_say_tokens_lock_and_rank_in_both_languages():
    tree, _ = sglang_example()
    words = " ".join(texts(parse(render_radix(tree))))
    assert "[1 2] · 2 tokens · lock 1" in words and "[3] · 1 token · lock 0 · evict #" in words
    zh = " ".join(texts(parse(render_radix(tree, lang="zh"))))
    assert "锁 1" in zh and "逐出第 1 个" in zh


def test_long_edges_are_shortened():
    tree = RadixCache.create_simulated(mock_allocator=drive.Allocator())
    tree.insert(InsertParams(key=key(*range(100))))
    assert "[0 1 2 3 4 5 …] · 100 tokens · lock 0 · evict #1" in texts(parse(render_radix(tree)))


def test_decoded_token_text_is_escaped():
    tree = RadixCache.create_simulated(mock_allocator=drive.Allocator())
    tree.insert(InsertParams(key=key(1, 2)))
    svg = render_radix(tree, decode=lambda ids: "<script>&'\"\x1b")
    assert "<script>" not in svg
    assert any("<script>&'\"␛" in line for line in texts(parse(svg)))


def test_an_empty_tree_says_so():
    tree = RadixCache.create_simulated(mock_allocator=drive.Allocator())
    svg = render_radix(tree)
    assert rows(svg) == [] and "the tree is empty: nothing is cached" in texts(parse(svg))


def test_a_chain_deeper_than_the_recursion_limit_renders():
    tree = RadixCache.create_simulated(mock_allocator=drive.Allocator())
    for n in range(1, 400):   # each insert adds one node under the last: a 400-deep chain
        tree.insert(InsertParams(key=key(*range(n))))
    # a limit 300 frames above this one (building a chain deeper than the default 1,000 costs
    # seconds of inserts, each walking the whole chain): a recursive walk of the chain would hit it
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack(0)) + 300)
    try:
        drawn = rows(render_radix(tree, max_nodes=400))   # down to the chain's last node
    finally:
        sys.setrecursionlimit(limit)
    assert len(drawn) == 399


def final_cache(stream: dict) -> RadixCache:
    made = []

    def make(params):
        made.append(RadixCache(params))
        return made[-1]
    drive.run(SimpleNamespace(**{**vars(BLOCKVIZ), "RadixCache": make}), stream)
    return made[0]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), max_nodes=st.integers(0, 12))
def test_random_trees_render_with_at_most_max_nodes_rows(seed, max_nodes):
    tree = final_cache(random_stream(random.Random(seed)))
    nodes = list(preorder(tree))
    svg = render_radix(tree, max_nodes=max_nodes)
    drawn = rows(svg)
    assert len(drawn) == min(len(nodes), max_nodes)
    by_id = {node.id: node for node, _ in nodes}
    drawn_ids = [int(r["data-node"]) for r in drawn]
    assert all(int(r["data-lock"]) == by_id[int(r["data-node"])].lock_ref for r in drawn)
    for node_id in drawn_ids:   # preorder: a drawn node's parent is drawn too
        parent = by_id[node_id].parent
        assert parent is tree.root_node or parent.id in drawn_ids
    evictable = {node.id for node in tree.evictable_leaves}
    assert {int(r["data-node"]) for r in drawn if "data-evict-rank" in r} == evictable & set(drawn_ids)
    title = f"SGLang's radix tree: {len(nodes)} nodes, {tree.total_size()} tokens cached"
    assert texts(parse(svg))[0].startswith(title)
    left_out = len(nodes) - max_nodes
    assert (f"more node" in " ".join(texts(parse(svg)))) == (left_out > 0)
    if max_nodes >= len(nodes):
        ranks = sorted(int(r["data-evict-rank"]) for r in drawn if "data-evict-rank" in r)
        assert ranks == list(range(1, len(evictable) + 1))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_note_of_left_out_nodes_counts_them(lang):
    tree = RadixCache.create_simulated(mock_allocator=drive.Allocator())
    for first in range(10):
        tree.insert(InsertParams(key=key(first, 1, 2)))
    words = texts(parse(render_radix(tree, lang=lang, max_nodes=4)))
    assert any(("6 more nodes" if lang == "en" else "另有 6 个节点") in w for w in words)


def test_at_the_projectors_layout_the_tree_is_18px_and_the_same_rows():
    from blockviz.views.layout import PROJECTOR
    tree, _ = sglang_example()
    big = render_radix(tree, layout=PROJECTOR)
    sizes = [float(el.get("font-size")) for el in parse(big).iter() if el.tag.endswith("text")]
    assert min(sizes) >= 18
    assert rows(big) == rows(render_radix(tree))
    assert float(parse(big).get("height")) > float(parse(render_radix(tree)).get("height"))


def folds(svg: str) -> list[dict[str, str]]:
    return [el.attrib for el in parse(svg).iter() if el.get("class") == "bv-radix-fold"]


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), max_nodes=st.integers(0, 8), data=st.data())
def test_focused_nodes_are_drawn_with_their_path_and_the_rest_folds_in_place(seed, max_nodes, data):
    """focus: the chosen nodes and every node above them drawn whatever the cap; others in preorder
    while rows are left, each under a drawn parent; each run of undrawn nodes one row that counts
    them, in its place; every node drawn or counted once."""
    tree = final_cache(random_stream(random.Random(seed)))
    nodes = list(preorder(tree))
    by_id = {node.id: node for node, _ in nodes}
    focus = data.draw(st.sets(st.sampled_from(sorted(by_id)), max_size=3)) if by_id else set()
    keep = set()
    for node_id in focus:
        node = by_id[node_id]
        while node is not tree.root_node:
            keep.add(node.id)
            node = node.parent
    svg = render_radix(tree, max_nodes=max_nodes, focus=[*focus, -7])   # an id not in the tree is left out
    order = [el.attrib for el in parse(svg).iter() if el.get("class") in ("bv-radix-node", "bv-radix-fold")]
    drawn = [int(r["data-node"]) for r in order if "data-node" in r]
    assert keep <= set(drawn)
    assert len(set(drawn) - keep) <= max(0, max_nodes - len(keep))
    assert drawn == [node.id for node, _ in nodes if node.id in drawn]   # in preorder
    for node_id in drawn:
        parent = by_id[node_id].parent
        assert parent is tree.root_node or parent.id in drawn
    assert len(drawn) + sum(int(r["data-hidden"]) for r in folds(svg)) == len(nodes)
    for a, b in zip(order, order[1:]):
        assert "data-node" in a or "data-node" in b   # a run folds into one row
    k = 0   # each fold row counts the preorder run it stands for
    for r in order:
        if "data-node" in r:
            assert nodes[k][0].id == int(r["data-node"])
            k += 1
        else:
            assert int(r["data-depth"]) == nodes[k][1]
            k += int(r["data-hidden"])
    assert "more node" not in " ".join(texts(parse(svg)))
    if max_nodes >= len(nodes):   # room for every row: the picture without focus
        assert svg == render_radix(tree, max_nodes=max_nodes)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_focused_node_past_the_cap_is_drawn_and_the_rows_before_it_fold(lang):
    tree = RadixCache.create_simulated(mock_allocator=drive.Allocator())
    for first in range(10):
        tree.insert(InsertParams(key=key(first, 1, 2)))
    tree.insert(InsertParams(key=key(9, 1, 2, 3, 4)))
    last = next(n for n, _ in preorder(tree) if list(n.key.token_ids) == [3, 4])
    svg = render_radix(tree, lang=lang, max_nodes=4, focus=[last.id])
    assert [r["data-tokens"] for r in rows(svg)] == ["3", "3", "3", "2"]   # (0 1 2), (1 1 2), (9 1 2), (3 4)
    assert [r["data-hidden"] for r in folds(svg)] == ["7"]
    words = " ".join(texts(parse(svg)))
    assert ("⋯ 7 nodes not drawn here" if lang == "en" else "此处有 7 个节点未画出") in words
