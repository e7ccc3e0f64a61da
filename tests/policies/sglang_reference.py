"""The "sglang" policy as it was first written (blockviz/policies/sglang.py before its fast paths):
a token's slot at a time, the tree's own path_device_indices and evict, a match after each insert.
Slow and plain, kept to check that the fast one decides exactly as it did (test_sglang_fast.py)."""
from array import array

from blockviz.engine.block_manager import BlockManager
from blockviz.engine.sequence import Sequence, SequenceStatus
from blockviz.radix.base_prefix_cache import EvictParams, InsertParams, MatchPrefixParams
from blockviz.radix.radix_cache import RadixCache, RadixKey, TreeNode


class _PagePool:
    """The token_to_kv_pool_allocator the tree frees evicted leaves to: their pages go back free."""

    def __init__(self, manager: "PlainSglangBlockManager"):
        self.manager = manager

    def free_segment(self, values: array, start_pos: int = 0):
        self.manager._untree_pages(values)


class PlainSglangBlockManager(BlockManager):
    eviction_policy = "lru"

    def __init__(self, num_blocks: int, block_size: int):
        super().__init__(num_blocks, block_size)
        self.tree = RadixCache.create_simulated(mock_allocator=_PagePool(self), page_size=block_size,
                                                eviction_policy=self.eviction_policy)
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
        for page in sorted({v // self.block_size for v in values}):
            self.tree_pages.discard(page)
            if self.blocks[page].ref_count == 0:
                self._deallocate_block(page)

    def _slots(self, seq: Sequence, n: int) -> array:
        B = self.block_size
        return array("q", (seq.block_table[i // B] * B + i % B for i in range(n)))

    def _key(self, token_ids: list[int]) -> RadixKey:
        return RadixKey(array("q", token_ids))

    # nano-vllm's calls ---------------------------------------------------------------------------

    def can_allocate(self, seq: Sequence) -> int:
        # match the prompt but its last token: one token must be computed to sample from
        match = self.tree.match_prefix(MatchPrefixParams(key=self._key(seq.token_ids[:seq.num_tokens - 1])))
        num_cached_blocks = match.device_prefix_len // self.block_size
        num_new_blocks = seq.num_blocks - num_cached_blocks
        if len(self.free_block_ids) + self._evictable_pages(match.last_device_node) < num_new_blocks:
            return -1
        self.matched[seq.seq_id] = match.last_device_node
        return num_cached_blocks

    def allocate(self, seq: Sequence, num_cached_blocks: int):
        assert not seq.block_table
        node = self.matched.pop(seq.seq_id)
        prefix = self.tree.path_device_indices(node)
        assert len(prefix) == num_cached_blocks * self.block_size
        self.tree.inc_lock_ref(node)
        for page in prefix[::self.block_size]:
            page //= self.block_size
            self.blocks[page].ref_count += 1
            seq.block_table.append(page)
        seq.block_table.extend(self._take_pages(seq.num_blocks - num_cached_blocks))
        seq.num_cached_tokens = len(prefix)
        self.last_node[seq.seq_id] = node
        self.protected[seq.seq_id] = self.inserted[seq.seq_id] = len(prefix)

    def can_append(self, seq: Sequence) -> bool:
        need = len(seq) % self.block_size == 1 % self.block_size
        return len(self.free_block_ids) + self._evictable_pages() >= need

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
        del self.protected[seq.seq_id], self.inserted[seq.seq_id]
        seq.num_cached_tokens = 0
        seq.block_table.clear()

    # SGLang's RadixCache._insert_cache and checkpoint, over a block table -------------------------

    def _insert_cache(self, seq: Sequence, num_tokens: int) -> RadixKey:
        """Insert the page-aligned tokens [0, num_tokens); the request's own pages that the tree
        already held (from another request) are duplicates: they are given up, and the tree's pages
        take their place in the block table."""
        key = self._key(seq.token_ids[:num_tokens]).page_aligned(self.block_size)
        values = self._slots(seq, len(key))
        result = self.tree.insert(InsertParams(key=key, value=values, inserted_len=self.inserted[seq.seq_id]))
        self.inserted[seq.seq_id] = max(self.inserted[seq.seq_id], len(key))
        self.tree_pages.update(v // self.block_size for v in values[result.prefix_len::self.block_size])
        # the duplicates [protected, prefix_len): point the table at the tree's pages
        tree_values = self.tree.path_device_indices(self.tree.match_prefix(MatchPrefixParams(key=key)).last_device_node)
        B = self.block_size
        for i in range(self.protected[seq.seq_id] // B, result.prefix_len // B):
            own, theirs = seq.block_table[i], tree_values[i * B] // B
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
