"""blockviz's RadixCache on its own (no SGLang needed): SGLang's own example, the decisions the
issue names (split, page alignment, locks, leaf-first eviction by policy) and the tree's invariants
over random operation streams."""
from array import array

from hypothesis import given, settings, strategies as st

from blockviz.radix import clock
from blockviz.radix.base_prefix_cache import EvictParams, InsertParams, MatchPrefixParams
from blockviz.radix.radix_cache import RadixCache, RadixKey

from tests.radix import drive
from tests.radix.sides import BLOCKVIZ
from tests.radix.streams import random_stream


def key(*tokens: int) -> RadixKey:
    return RadixKey(array("q", tokens))


def cache(page_size: int = 1, policy: str = "lru") -> tuple[RadixCache, drive.Allocator]:
    allocator = drive.Allocator()
    return RadixCache.create_simulated(mock_allocator=allocator, page_size=page_size, eviction_policy=policy), allocator


def edges(tree: RadixCache) -> list[list[int]]:
    """Every node's edge, parents before children, children in token order."""
    out = []

    def walk(node):
        for child in sorted(node.children.values(), key=lambda c: list(c.key.token_ids)):
            out.append(list(child.key.token_ids))
            walk(child)
    walk(tree.root_node)
    return out


def test_sglangs_own_example():
    """radix_cache.py's __main__: five inserts, then a match that parts after three tokens."""
    tree, _ = cache()
    for tokens in ([1, 2, 3], [1, 2, 3], [1, 2, 4, 5], [1, 2, 4, 5, 6, 7], [8, 9, 10, 11, 12]):
        tree.insert(InsertParams(key=key(*tokens)))
    assert edges(tree) == [[1, 2], [3], [4, 5], [6, 7], [8, 9, 10, 11, 12]]
    assert tree.total_size() == 12
    assert tree.match_prefix(MatchPrefixParams(key=key(1, 2, 3, 13, 14))).device_prefix_len == 3


def test_a_match_that_ends_inside_an_edge_splits_it():
    tree, _ = cache()
    tree.insert(InsertParams(key=key(1, 2, 3, 4), value=array("q", [10, 11, 12, 13])))
    result = tree.match_prefix(MatchPrefixParams(key=key(1, 2, 9)))
    assert result.device_prefix_len == 2 and list(result.last_device_node.key.token_ids) == [1, 2]
    assert edges(tree) == [[1, 2], [3, 4]]
    assert list(tree.path_device_indices(result.last_device_node)) == [10, 11]


def test_pages_match_and_insert_whole_pages_only():
    tree, _ = cache(page_size=4)
    tree.insert(InsertParams(key=key(1, 2, 3, 4, 5, 6)))   # the part-filled page is not cached
    assert tree.total_size() == 4
    assert tree.match_prefix(MatchPrefixParams(key=key(1, 2, 3, 4, 5))).device_prefix_len == 4
    assert tree.match_prefix(MatchPrefixParams(key=key(1, 2, 3, 9))).device_prefix_len == 0


def test_a_locked_path_is_not_evicted_and_leaves_go_first():
    tree, allocator = cache()
    tree.insert(InsertParams(key=key(1, 2, 3)))
    tree.insert(InsertParams(key=key(1, 2, 4)))
    tree.insert(InsertParams(key=key(7, 8)))
    locked = tree.match_prefix(MatchPrefixParams(key=key(7, 8))).last_device_node
    assert tree.inc_lock_ref(locked).delta == -2 and tree.protected_size() == 2
    result = tree.evict(EvictParams(num_tokens=100))
    # [3] then [4] (least recently used first), then [1, 2] once it is a leaf; [7, 8] is locked
    assert allocator.freed == [[3], [4], [1, 2]] and result.num_tokens_evicted == 4
    assert tree.dec_lock_ref(locked).delta == 2 and tree.evictable_size() == 2


def test_lfu_evicts_the_least_hit_leaf_before_an_older_one():
    tree, allocator = cache(policy="lfu")
    tree.insert(InsertParams(key=key(1)))
    tree.insert(InsertParams(key=key(1)))   # a second insert of the same prefix is a hit
    tree.insert(InsertParams(key=key(2)))
    tree.evict(EvictParams(num_tokens=1))
    assert allocator.freed == [[2]]


def test_the_clock_ticks_once_a_call():
    first = clock.monotonic()
    assert clock.monotonic() == first + 1


@settings(max_examples=150, deadline=None)
@given(st.randoms(use_true_random=False).map(random_stream))
def test_the_tree_keeps_its_invariants(stream):
    allocator = drive.Allocator()
    tree = RadixCache(BLOCKVIZ.CacheInitParams(disable=False, req_to_token_pool=None, token_to_kv_pool_allocator=allocator,
                                               page_size=stream["page_size"], is_eagle=stream["is_eagle"],
                                               eviction_policy=stream["policy"]))
    locks = []
    for op in stream["ops"]:
        if op["op"] == "insert":
            tree.insert(InsertParams(key=key(*op["tokens"]), priority=op["priority"], inserted_len=op["inserted_len"]))
        elif op["op"] == "match":
            node = tree.match_prefix(MatchPrefixParams(key=key(*op["tokens"]))).last_device_node
            if op["lock"]:
                tree.inc_lock_ref(node)
                locks.append(node)
        elif op["op"] == "unlock":
            tree.dec_lock_ref(locks[op["lock"]])
        else:
            before = tree.total_size()
            evicted = tree.evict(EvictParams(num_tokens=op["num_tokens"])).num_tokens_evicted
            assert tree.total_size() == before - evicted
            assert evicted >= op["num_tokens"] or tree.evictable_size() == 0
        check(tree)


def check(tree: RadixCache) -> None:
    assert tree.evictable_size() + tree.protected_size() == tree.total_size()
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        for child_key, child in node.children.items():
            assert child.parent is node and child_key == child.key.child_key(tree.page_size)
            assert len(child.key) % tree.page_size == 0 and len(child.value) == len(child.key) > 0
            assert child.lock_ref <= node.lock_ref or node is tree.root_node
            stack.append(child)
        leaf = node is not tree.root_node and node.lock_ref == 0 and not node.children
        assert (node in tree.evictable_leaves) == leaf
