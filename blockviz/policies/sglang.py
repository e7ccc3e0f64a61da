"""SGLang's prefix cache, put into nano-vllm's BlockManager: the radix tree decides what is cached.

A page is a block (page_size = block_size), the pool a fixed number of pages, a token's KV slot
`page * page_size + offset`. Where SGLang 0.5.23 (sgl-project/sglang) serves a request around its
RadixCache (blockviz/radix/), this BlockManager does the same at nano-vllm's calls:

- can_allocate / allocate: the scheduler's prefix match (`match_prefix` over the prompt but its last
  token, page-aligned), `inc_lock_ref` on the matched node, and pages for the rest from the free
  pages, evicting unlocked leaves (`evict`, LRU) when they run short.
- hash_blocks after a prefill step: `RadixCache.checkpoint` (SGLang's cache_unfinished_req) through
  `_insert_cache`: the computed page-aligned tokens are inserted, the request's pages that duplicate
  ones already in the tree are freed and its block table points at the tree's, and the lock moves to
  the new last node.
- deallocate of a finished request: the same insert over every token with KV (prompt and generated,
  as SGLang's release of a finished request), then its lock released and the pages only it held
  freed (the unaligned last page is never in the tree). A preempted request is released without an
  insert (SGLang's retraction).
- can_append / may_append: one more page when a decode token starts one, evicting if needed.

The pool has three kinds of page, which `page_states` reports: free (`free_block_ids`), used (a
running request holds it: `ref_count > 0`) and cached (in the tree, held by no request: evictable).
`used_block_ids` is every page that is not free. Blocks carry no hash: in a radix tree a page is
found by the tokens on its path, so `hash_to_block_id` stays empty.

Speed (a whole trace is 145M prompt tokens; bench/radix_traffic.py), with the same decisions:
a request's tokens are kept as one array("q") extended as it grows, its slots are built a page at
a time in numpy, pages are read off the tree a page at a time (a node's value is whole pages), and
the tree's evict finds the oldest unlocked leaf in a heap kept as leaves come and go (_RadixCache)
instead of heaping every leaf on every call. tests/policies/test_sglang_fast.py checks every step
against the plain implementation (tests/policies/sglang_reference.py).
"""
import heapq
from array import array

import numpy as np

from blockviz.engine.block_manager import BlockManager
from blockviz.engine.sequence import Sequence, SequenceStatus
from blockviz.policies.policy import Policy
from blockviz.radix.base_prefix_cache import EvictParams, EvictResult, InsertParams, MatchPrefixParams
from blockviz.radix.cache_init_params import CacheInitParams
from blockviz.radix.radix_cache import RadixCache, RadixKey, TreeNode


class _PagePool:
    """The token_to_kv_pool_allocator the tree frees evicted leaves to: their pages go back free."""

    def __init__(self, manager: "SglangBlockManager"):
        self.manager = manager

    def free_segment(self, values: array, start_pos: int = 0):
        self.manager._untree_pages(values)


class _LeavesByAge(set):
    """RadixCache.evictable_leaves (a set) that also keeps every leaf added in a heap by its eviction
    priority, so the oldest is found without heaping them all. Priorities only grow (a node's access
    time is stamped later, its hit count rises), so an entry is at most as old as its node: one whose
    node left the set is dropped, one whose priority has grown is pushed again with the new one."""

    def __init__(self, priority):
        super().__init__()
        self.priority = priority
        self.heap: list[tuple] = []

    def add(self, node: TreeNode):
        if node not in self:
            super().add(node)
            heapq.heappush(self.heap, (self.priority(node), node.id, node))

    def clear(self):
        super().clear()
        self.heap.clear()

    def oldest(self) -> TreeNode:
        """The leaf of least priority now (the set must not be empty)."""
        heap = self.heap
        if len(heap) > 4 * len(self) + 1024:   # mostly stale: rebuild
            self.heap = heap = [(self.priority(node), node.id, node) for node in self]
            heapq.heapify(heap)
        while True:
            priority, _, node = heap[0]
            if node not in self:
                heapq.heappop(heap)
            elif priority != (now := self.priority(node)):
                heapq.heapreplace(heap, (now, node.id, node))
            else:
                return node


class _RadixCache(RadixCache):
    """SGLang's RadixCache (blockviz/radix/, unchanged) whose evict takes the same leaves faster.

    SGLang's evict heaps every evictable leaf, then pops the least, deletes it and pushes its parent
    if that became an unlocked leaf: its heap is always exactly the evictable leaves, so each pop is
    the least of evictable_leaves at that moment. Two leaves never tie: the logical clock stamps
    each call once, and nodes stamped by one call lie on one path, where only one can be a leaf.
    Here evictable_leaves keeps that heap across calls (_LeavesByAge). For policies whose priority
    can fall (MRU, FILO) SGLang's own evict runs."""

    GROWING = ("lru", "lfu", "fifo", "priority")

    def __init__(self, params: CacheInitParams):
        super().__init__(params)
        if self.eviction_policy in self.GROWING:
            self.evictable_leaves = _LeavesByAge(self.eviction_strategy.get_priority)

    def evict(self, params: EvictParams) -> EvictResult:
        if not isinstance(self.evictable_leaves, _LeavesByAge):
            return super().evict(params)
        num_evicted = 0
        while num_evicted < params.num_tokens and self.evictable_leaves:
            x = self.evictable_leaves.oldest()
            self.token_to_kv_pool_allocator.free_segment(x.value, start_pos=0)
            num_evicted += len(x.value)
            self._delete_leaf(x)
        return EvictResult(num_tokens_evicted=num_evicted)


class SglangBlockManager(BlockManager):
    eviction_policy = "lru"

    def __init__(self, num_blocks: int, block_size: int):
        super().__init__(num_blocks, block_size)
        self.tree = _RadixCache(CacheInitParams(disable=False, req_to_token_pool=None,
                                                token_to_kv_pool_allocator=_PagePool(self), page_size=block_size,
                                                eviction_policy=self.eviction_policy))
        self.tokens: dict[int, array] = {}        # seq_id -> its token ids so far, as the tree's keys hold them
        self.offsets = np.arange(block_size, dtype=np.int64)   # a page's token offsets, for its slots
        self.tree_pages: set[int] = set()        # pages whose KV the tree holds
        self.last_node: dict[int, TreeNode] = {}  # seq_id -> the node its lock is on (req.last_node)
        self.protected: dict[int, int] = {}       # seq_id -> tokens of its table that are the tree's (cache_protected_len)
        self.inserted: dict[int, int] = {}        # seq_id -> tokens it has inserted (cache_inserted_len)
        self.matched: dict[int, TreeNode] = {}    # seq_id -> can_allocate's match, for allocate

    # pages ---------------------------------------------------------------------------------------

    def page_states(self) -> dict[str, set[int]]:
        """The pool's partition: free, used (held by a running request), cached (tree only)."""
        free = set(self.free_block_ids)
        used = {b for b in self.used_block_ids if self.blocks[b].ref_count > 0}
        return {"free": free, "used": used, "cached": set(self.used_block_ids) - used}

    def _evictable_pages(self, exclude: TreeNode | None = None) -> int:
        tokens = self.tree.evictable_size()
        while exclude is not None and exclude is not self.tree.root_node:   # the path about to be locked
            if exclude.lock_ref == 0:
                tokens -= len(exclude.key)
            exclude = exclude.parent
        return tokens // self.block_size

    def _take_pages(self, n: int) -> list[int]:
        short = n - len(self.free_block_ids)
        if short > 0:   # alloc_token_slots: evict what is missing, then allocate
            self.tree.evict(EvictParams(num_tokens=short * self.block_size))
        return [self._allocate_block() for _ in range(n)]

    def _untree_pages(self, values: array):
        B = self.block_size   # a node's value is whole pages: a page's slots start at its first
        for page in sorted({v // B for v in values[::B]}):
            self.tree_pages.discard(page)
            if self.blocks[page].ref_count == 0:
                self._deallocate_block(page)

    def _slots(self, seq: Sequence, n: int) -> array:
        """The KV slots of the request's first n tokens: page * page_size + offset."""
        B = self.block_size
        pages = np.array(seq.block_table[:-(-n // B)], dtype=np.int64)
        slots = array("q")
        slots.frombytes((pages[:, None] * B + self.offsets).ravel()[:n].tobytes())
        return slots

    def _path_pages(self, node: TreeNode) -> list[int]:
        """The pages on the tree's path to node, from the root (tree.path_device_indices a page at a time)."""
        B, parts = self.block_size, []
        while node is not self.tree.root_node:
            parts.append(node.value[::B])
            node = node.parent
        return [slot // B for part in reversed(parts) for slot in part]

    def _key(self, seq: Sequence, n: int) -> RadixKey:
        """The request's first n tokens as a key (its token array extended by what it generated)."""
        tokens = self.tokens.get(seq.seq_id)
        if tokens is None:
            tokens = self.tokens[seq.seq_id] = array("q", seq.token_ids)
        elif len(tokens) < seq.num_tokens:
            tokens.extend(seq.token_ids[len(tokens):])
        return RadixKey(tokens[:n])

    # nano-vllm's calls ---------------------------------------------------------------------------

    def can_allocate(self, seq: Sequence) -> int:
        # match the prompt but its last token: one token must be computed to sample from
        match = self.tree.match_prefix(MatchPrefixParams(key=self._key(seq, seq.num_tokens - 1)))
        num_cached_blocks = match.device_prefix_len // self.block_size
        num_new_blocks = seq.num_blocks - num_cached_blocks
        if len(self.free_block_ids) + self._evictable_pages(match.last_device_node) < num_new_blocks:
            return -1
        self.matched[seq.seq_id] = match.last_device_node
        return num_cached_blocks

    def allocate(self, seq: Sequence, num_cached_blocks: int):
        assert not seq.block_table
        node = self.matched.pop(seq.seq_id)
        prefix = self._path_pages(node)
        assert len(prefix) == num_cached_blocks
        self.tree.inc_lock_ref(node)
        for page in prefix:
            self.blocks[page].ref_count += 1
            seq.block_table.append(page)
        seq.block_table.extend(self._take_pages(seq.num_blocks - num_cached_blocks))
        seq.num_cached_tokens = len(prefix) * self.block_size
        self.last_node[seq.seq_id] = node
        self.protected[seq.seq_id] = self.inserted[seq.seq_id] = seq.num_cached_tokens

    def can_append(self, seq: Sequence) -> bool:
        need = len(seq) % self.block_size == 1 % self.block_size
        # most decode steps need no page, or find a free one: the tree is not asked
        return not need or len(self.free_block_ids) > 0 or self._evictable_pages() >= need

    def may_append(self, seq: Sequence):
        if len(seq) % self.block_size == 1 % self.block_size:
            seq.block_table.extend(self._take_pages(1))

    def hash_blocks(self, seq: Sequence):
        if seq.is_prefill:   # after a prefill chunk: RadixCache.checkpoint (cache_unfinished_req)
            self._checkpoint(seq, seq.num_cached_tokens + seq.num_scheduled_tokens)

    def deallocate(self, seq: Sequence):
        if seq.status == SequenceStatus.FINISHED:   # release_kv_cache with insert: prompt and output
            self._insert_cache(seq, seq.num_cached_tokens)
        self.tree.dec_lock_ref(self.last_node.pop(seq.seq_id))
        for page in reversed(seq.block_table):
            block = self.blocks[page]
            block.ref_count -= 1
            if block.ref_count == 0 and page not in self.tree_pages:
                self._deallocate_block(page)
        del self.protected[seq.seq_id], self.inserted[seq.seq_id], self.tokens[seq.seq_id]
        seq.num_cached_tokens = 0
        seq.block_table.clear()

    # SGLang's RadixCache._insert_cache and checkpoint, over a block table -------------------------

    def _insert_cache(self, seq: Sequence, num_tokens: int) -> RadixKey:
        """Insert the page-aligned tokens [0, num_tokens); the request's own pages that the tree
        already held (from another request) are duplicates: they are given up, and the tree's pages
        take their place in the block table."""
        B = self.block_size
        key = self._key(seq, num_tokens).page_aligned(B)
        values = self._slots(seq, len(key))
        result = self.tree.insert(InsertParams(key=key, value=values, inserted_len=self.inserted[seq.seq_id]))
        self.inserted[seq.seq_id] = max(self.inserted[seq.seq_id], len(key))
        self.tree_pages.update(seq.block_table[result.prefix_len // B:len(key) // B])
        # the duplicates [protected, prefix_len): point the table at the tree's pages, read off the
        # path to the node the key ends at (the node insert returns, which a match of the key finds)
        first, end = self.protected[seq.seq_id] // B, result.prefix_len // B
        tree_pages = self._path_pages(result.last_device_node) if first < end else []
        for i in range(first, end):
            own, theirs = seq.block_table[i], tree_pages[i]
            if own != theirs:
                self.blocks[theirs].ref_count += 1
                self.blocks[own].ref_count -= 1
                if self.blocks[own].ref_count == 0:
                    self._deallocate_block(own)
                seq.block_table[i] = theirs
        return key

    def _checkpoint(self, seq: Sequence, up_to: int):
        key = self._insert_cache(seq, up_to)
        node = self.tree.match_prefix(MatchPrefixParams(key=key)).last_device_node
        self.protected[seq.seq_id] = len(key)
        self.tree.dec_lock_ref(self.last_node[seq.seq_id])
        self.tree.inc_lock_ref(node)
        self.last_node[seq.seq_id] = node


POLICY = Policy("sglang", SglangBlockManager,
                "SGLang 0.5.23: python/sglang/srt/mem_cache/radix_cache.py (RadixCache._insert_cache, checkpoint, "
                "evict), the scheduler's prefix match and release of finished and retracted requests",
                keyframes=False)   # its tree is not in a keyframe: a trace replays from step 0
