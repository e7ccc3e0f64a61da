"""One operation stream through a RadixCache, and what can be seen after each operation.

Both sides of the differential test run this file: blockviz's process with blockviz.radix, and a
.venv-sglang process (sglang_side.py) with SGLang's own module. It imports nothing but the
standard library, so that the two runs differ only in the cache they are handed.

A stream is a dict: page_size, policy, is_eagle and ops, each op one of
  {"op": "insert", "tokens": [...], "value": [...] | None, "priority": p, "inserted_len": n}
  {"op": "match", "tokens": [...], "lock": bool}   (lock: inc_lock_ref on the node it ends at,
                                                    as a scheduler does for a running request)
  {"op": "unlock", "lock": i}                      (dec_lock_ref on the i-th lock taken)
  {"op": "evict", "num_tokens": n}
"""
from types import SimpleNamespace


class Allocator:
    """The token pool as the cache sees it: it records each segment that eviction frees."""

    device = "cpu"

    def __init__(self):
        self.freed: list[list[int]] = []

    def free_segment(self, values, start_pos: int = 0) -> None:
        self.freed.append([int(v) for v in values])


def path(node, root) -> list[int]:
    """The tokens from the root to `node`: names a node the same way in both processes."""
    parts = []
    while node is not root:
        parts.append([int(t) for t in node.key.token_ids])
        node = node.parent
    return [t for part in reversed(parts) for t in part]


def shape(cache) -> dict:
    """The whole tree: each node's edge tokens, values, lock count, hit count, priority and
    evictable-leaf mark; children in order of their edge; with the rank of every node's
    last-access and creation stamps (the order LRU, MRU, FIFO and FILO read)."""
    nodes = []

    def walk(node) -> dict:
        nodes.append(node)
        children = sorted(node.children.values(), key=lambda c: [int(t) for t in c.key.token_ids])
        return {"key": [int(t) for t in node.key.token_ids], "value": [int(v) for v in node.value],
                "lock": node.lock_ref, "hits": node.hit_count, "priority": node.priority,
                "leaf": node in cache.evictable_leaves, "children": [walk(c) for c in children]}

    tree = walk(cache.root_node)
    by_access = sorted(range(len(nodes)), key=lambda i: nodes[i].last_access_time)
    by_creation = sorted(range(len(nodes)), key=lambda i: nodes[i].creation_time)
    return {"tree": tree, "access_order": by_access, "creation_order": by_creation,
            "evictable": cache.evictable_size(), "protected": cache.protected_size(),
            "total": cache.total_size()}


def run(api: SimpleNamespace, stream: dict) -> list[dict]:
    """api: RadixCache, RadixKey, CacheInitParams, InsertParams, MatchPrefixParams, EvictParams
    and values(list) -> the array type that side keeps values in."""
    allocator = Allocator()
    cache = api.RadixCache(api.CacheInitParams(
        disable=False, req_to_token_pool=None, token_to_kv_pool_allocator=allocator,
        page_size=stream["page_size"], is_eagle=stream["is_eagle"], eviction_policy=stream["policy"]))
    locks = []
    seen = []
    for op in stream["ops"]:
        if op["op"] == "insert":
            value = None if op["value"] is None else api.values(op["value"])
            result = cache.insert(api.InsertParams(key=api.RadixKey(api.tokens(op["tokens"])), value=value,
                                                   priority=op["priority"], inserted_len=op["inserted_len"]))
            out = {"prefix_len": result.prefix_len, "node": path(result.last_device_node, cache.root_node)}
        elif op["op"] == "match":
            result = cache.match_prefix(api.MatchPrefixParams(key=api.RadixKey(api.tokens(op["tokens"]))))
            node = result.last_device_node
            out = {"matched": result.device_prefix_len, "node": path(node, cache.root_node),
                   "indices": [int(v) for v in cache.path_device_indices(node)]}
            if op["lock"]:
                out["delta"] = cache.inc_lock_ref(node).delta
                locks.append(node)
        elif op["op"] == "unlock":
            out = {"delta": cache.dec_lock_ref(locks[op["lock"]]).delta}
        else:
            allocator.freed.clear()
            result = cache.evict(api.EvictParams(num_tokens=op["num_tokens"]))
            out = {"evicted": result.num_tokens_evicted, "freed": list(allocator.freed)}
        out["shape"] = shape(cache)
        seen.append(out)
    return seen
