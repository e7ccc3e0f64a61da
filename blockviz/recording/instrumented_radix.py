"""The recording's subclasses for policy "sglang": SGLang's tree and its BlockManager, reporting.

As recording/instrumented.py does for nano-vllm, each override calls the original unchanged and
reads the state around it. `RecordingRadixCache` wraps RadixCache's methods (blockviz/radix/ stays
SGLang's text) and emits the tree's events (events.py: NodeInserted, NodeSplit, NodeTouched,
NodesHit, LockChanged, LeafEvicted). `RadixRecording` goes over SglangBlockManager (policies/sglang.py)
in place of the hash-chain recording: the same events where they mean the same (BlockAllocated,
BlockShared for a page found in the tree, BlockAppended, CanAllocate) and its own where the pool
differs, since a page held by no request stays cached in the tree, out of the free queue
(PageReleased, PageFreed, PageDeduplicated).
"""
from typing import Callable

from blockviz.engine.sequence import Sequence, SequenceStatus
from blockviz.policies.sglang import SglangBlockManager
from blockviz.radix.base_prefix_cache import MatchResult
from blockviz.radix.cache_init_params import CacheInitParams
from blockviz.radix.radix_cache import RadixCache, TreeNode
from blockviz.recording import events as ev

Emit = Callable[[ev.Event], None]


class RecordingRadixCache(RadixCache):
    """A RadixCache that emits what it does. Nodes get a number in this tree (`recording_id`: the
    root 0, then in creation order) and times a tick of this tree (1, 2, ... in the order the
    clock gave them), so the events are the same in every replay whatever else used the clock."""

    def __init__(self, params: CacheInitParams, emit: Emit):
        self.emit = emit
        self.seq_id = -1      # the request the BlockManager is working for
        super().__init__(params)

    def reset(self):
        super().reset()
        self.next_id = 1
        self.last_raw, self.last_tick, self.ticks = float("-inf"), 0, {}
        self.root_node.recording_id = 0
        self.tick(self.root_node.last_access_time), self.tick(self.root_node.creation_time)   # 1 and 2
        self.last_match: MatchResult = self._empty_match_result

    def tick(self, raw: float) -> int:
        """This tree's tick for a time the clock gave (the same tick for the same time within an operation)."""
        known = self.ticks.get(raw)
        if known is not None:
            return known
        assert raw > self.last_raw, "a time first seen after a later one: the events would reorder the tree"
        self.last_raw, self.last_tick = raw, self.last_tick + 1
        self.ticks[raw] = self.last_tick
        return self.last_tick

    def name(self, node: TreeNode) -> int:
        number = getattr(node, "recording_id", None)
        if number is None:
            number = node.recording_id = self.next_id
            self.next_id += 1
        return number

    def touched(self, last: TreeNode, access_time: float):
        """After a walk that stamped the root and the nodes under it with access_time: the deepest
        one (a node split off at the end of the walk, or a new leaf, has its own time)."""
        node = last
        while node is not self.root_node and node.last_access_time != access_time:
            node = node.parent
        self.emit(ev.NodeTouched(self.seq_id, self.name(node), self.tick(access_time)))

    # --- the wrapped operations -------------------------------------------------------------------

    def match_prefix(self, params) -> MatchResult:
        self.last_match = super().match_prefix(params)
        return self.last_match

    def _match_prefix_helper(self, node: TreeNode, key):
        self.ticks.clear()   # the times of one walk are new: the earlier ones are never seen again
        value, last = super()._match_prefix_helper(node, key)
        self.touched(last, node.last_access_time)
        return value, last

    def _split_node(self, key, child: TreeNode, split_len: int):
        # the walk stamped child and every node above it; the new node takes its own time
        self.emit(ev.NodeTouched(self.seq_id, self.name(child), self.tick(child.last_access_time)))
        new = super()._split_node(key, child, split_len)
        self.emit(ev.NodeSplit(self.seq_id, self.name(child), self.name(new), split_len,
                               self.tick(new.last_access_time), self.tick(new.creation_time)))
        return new

    def _insert_helper(self, node: TreeNode, key, value, priority: int = 0, inserted_len: int = 0):
        self.ticks.clear()
        self.hits: list[TreeNode] = []
        prefix_len, last = super()._insert_helper(node, key, value, priority, inserted_len)
        self.touched(last, node.last_access_time)
        leaf = last if prefix_len < len(key) else None
        if leaf is not None:
            ps = self.page_size
            self.emit(ev.NodeInserted(self.seq_id, self.name(leaf), self.name(leaf.parent), tuple(leaf.key.token_ids),
                                      tuple(v // ps for v in leaf.value[::ps]), self.tick(leaf.last_access_time),
                                      self.tick(leaf.creation_time), leaf.hit_count))
        hit = tuple(self.name(n) for n in self.hits if n is not leaf)
        if hit:
            self.emit(ev.NodesHit(self.seq_id, hit))
        return prefix_len, last

    def _inc_hit_count(self, node: TreeNode):
        super()._inc_hit_count(node)
        self.hits.append(node)

    def inc_lock_ref(self, node: TreeNode):
        result = super().inc_lock_ref(node)
        if node is not self.root_node:
            self.emit(ev.LockChanged(self.seq_id, self.name(node), 1))
        return result

    def dec_lock_ref(self, node: TreeNode, params=None):
        result = super().dec_lock_ref(node, params)
        if node is not self.root_node:
            self.emit(ev.LockChanged(self.seq_id, self.name(node), -1))
        return result

    def _delete_leaf(self, node: TreeNode):
        super()._delete_leaf(node)
        self.emit(ev.LeafEvicted(self.seq_id, self.name(node)))


class RadixRecording:
    """The recording's overrides for SglangBlockManager, put before instrumented.Recording by
    recording_class (which gives them its emit, touched blocks and BlockAllocated events); a call
    the hash chain's recording would misreport goes to the policy's own method (policy_class)."""
    policy_class: type[SglangBlockManager] = SglangBlockManager

    def __init__(self, num_blocks: int, block_size: int, emit: Emit):
        super().__init__(num_blocks, block_size, emit)
        live = self.tree   # SglangBlockManager's, still empty: the same tree, reporting
        self.tree = RecordingRadixCache(CacheInitParams(
            disable=live.disable, req_to_token_pool=None, token_to_kv_pool_allocator=live.token_to_kv_pool_allocator,
            page_size=live.page_size, eviction_policy=live.eviction_policy), emit)
        self._releasing: set[int] | None = None   # pages deallocate's release freed, while it runs
        self._release_next = False                 # deallocate's insert is running: the release follows it
        self._table: list[int] = []                # the block table the release goes over

    def _working_for(self, seq: Sequence):
        self._seq_id = self.tree.seq_id = seq.seq_id

    def _deallocate_block(self, block_id: int):
        super()._deallocate_block(block_id)
        self.touched.add(block_id)
        if self._releasing is not None:
            self._releasing.add(block_id)   # said by its PageReleased
        else:
            self.emit(ev.PageFreed(self._seq_id, block_id))

    def can_allocate(self, seq: Sequence) -> int:
        self._working_for(seq)
        result = self.policy_class.can_allocate(self, seq)
        matched = self.tree.last_match.device_prefix_len // self.block_size
        self.emit(ev.CanAllocate(seq.seq_id, result, seq.num_blocks - matched, len(self.free_block_ids)))
        return result

    def allocate(self, seq: Sequence, num_cached_blocks: int):
        self._working_for(seq)
        self._deferred = []   # new pages after the hits, as nano-vllm's recording tells them
        self.policy_class.allocate(self, seq, num_cached_blocks)
        deferred, self._deferred = self._deferred, None
        for block_id in seq.block_table[:num_cached_blocks]:
            self.touched.add(block_id)
            self.emit(ev.BlockShared(seq.seq_id, block_id, -1, self.blocks[block_id].ref_count))
        for event in deferred:
            self.emit(event)

    def may_append(self, seq: Sequence):
        self._working_for(seq)
        super().may_append(seq)

    def hash_blocks(self, seq: Sequence):
        self._working_for(seq)
        self.policy_class.hash_blocks(self, seq)   # a prefill chunk: the tree's checkpoint

    def _insert_cache(self, seq: Sequence, num_tokens: int):
        before = list(seq.block_table)
        key = super()._insert_cache(seq, num_tokens)
        for i, (own, now) in enumerate(zip(before, seq.block_table)):
            if own != now:
                self.touched.update((own, now))
                self.emit(ev.PageDeduplicated(seq.seq_id, i, own, now))
        if self._release_next:
            self._release_next, self._releasing, self._table = False, set(), list(seq.block_table)
        return key

    def deallocate(self, seq: Sequence):
        self._working_for(seq)
        self._table = list(seq.block_table)
        if seq.status == SequenceStatus.FINISHED:
            self._release_next = True   # the insert first (its duplicates freed), then the release
        else:
            self._releasing = set()
        try:
            self.policy_class.deallocate(self, seq)
            freed = self._releasing if self._releasing is not None else set()
        finally:
            self._releasing, self._release_next = None, False
        for block_id in reversed(self._table):
            self.touched.add(block_id)
            self.emit(ev.PageReleased(seq.seq_id, block_id, self.blocks[block_id].ref_count, block_id in freed))
