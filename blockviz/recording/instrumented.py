"""Subclasses of the faithful core that report what they do.

Each override calls the original method unchanged and reads the state around it, so a
recorded engine computes exactly what the engine it records computes. The recording's
BlockManager is built over the run's block policy (blockviz.policies): `recording_class(cls)`
puts these overrides over the policy's class, nano-vllm's own BlockManager by default.
"""
from functools import cache
from typing import Callable

from blockviz.engine.block_manager import BlockManager
from blockviz.engine.sequence import Sequence, SequenceStatus
from blockviz.policies import Policy, with_free_queue
from blockviz.policies.scheduler import PolicyScheduler
from blockviz.policies.sglang import SglangBlockManager
from blockviz.recording import events as ev
from blockviz.recording.instrumented_radix import RadixRecording
from blockviz.recording.probe import chain_of, probe_chain

Emit = Callable[[ev.Event], None]


class Recording:
    """The recording's overrides, put over a policy's BlockManager class by recording_class."""

    def __init__(self, num_blocks: int, block_size: int, emit: Emit):
        super().__init__(num_blocks, block_size)
        self.emit = emit
        self.touched: set[int] = set()  # blocks changed since the last snapshot
        self._seq_id = -1               # the request _allocate_block is working for
        self._deferred: list[ev.Event] | None = None  # allocate events held back, see allocate()
        self._hashes: dict[tuple, int] = {}
        self._chains: dict[int, tuple[Sequence, int, list]] = {}  # seq id -> (it, its length, its chain_of)

    def compute_hash(self, token_ids: list[int], prefix: int = -1) -> int:
        # The same integers as BlockManager.compute_hash (it is pure), remembered: a replay probes a
        # waiting prompt at every step it waits (can_allocate, then probe_chain for the chain view).
        key = (prefix, *token_ids)
        h = self._hashes.get(key)
        if h is None:
            if len(self._hashes) >= 4096:
                self._hashes.clear()
            h = self._hashes[key] = BlockManager.compute_hash(token_ids, prefix)
        return h

    def _allocate_block(self) -> int:
        block = self.blocks[self.free_block_ids[0]]
        evicted = dropped = -1
        if block.hash != -1:
            if self.hash_to_block_id.get(block.hash) == block.block_id:
                evicted = block.hash
            else:
                dropped = block.hash
        block_id = super()._allocate_block()
        self.touched.add(block_id)
        event = ev.BlockAllocated(self._seq_id, block_id, evicted, dropped)
        if self._deferred is not None:
            self._deferred.append(event)
        else:
            self.emit(event)
        return block_id

    def can_allocate(self, seq: Sequence) -> int:
        result = super().can_allocate(seq)
        # A waiting request is probed at every step it waits, its tokens unchanged: its chain is kept.
        known = self._chains.get(seq.seq_id)
        if known is None or known[0] is not seq or known[1] != len(seq):
            if len(self._chains) >= 1024:
                self._chains.clear()
            known = self._chains[seq.seq_id] = (seq, len(seq), chain_of(self, seq))
        probes = probe_chain(self, seq, known[2])
        for probe in probes:
            self.emit(probe)
        num_new = seq.num_blocks - sum(p.outcome == "hit_used" for p in probes)
        self.emit(ev.CanAllocate(seq.seq_id, result, num_new, len(self.free_block_ids)))
        return result

    def allocate(self, seq: Sequence, num_cached_blocks: int):
        # allocate() takes the cache hits first, then pops new blocks; the hit events are only
        # known afterwards, so the new blocks' events wait to keep the log in the engine's order.
        self._seq_id = seq.seq_id
        self._deferred = []
        super().allocate(seq, num_cached_blocks)
        deferred, self._deferred = self._deferred, None
        for block_id in seq.block_table[:num_cached_blocks]:
            block = self.blocks[block_id]
            self.touched.add(block_id)
            # a hit on a used block leaves ref_count >= 2; a revived free block starts at 1
            if block.ref_count == 1:
                self.emit(ev.BlockRevived(seq.seq_id, block_id, block.hash))
            else:
                self.emit(ev.BlockShared(seq.seq_id, block_id, block.hash, block.ref_count))
        for event in deferred:
            self.emit(event)

    def deallocate(self, seq: Sequence):
        block_table = list(seq.block_table)
        queued = len(self.free_block_ids)
        super().deallocate(seq)
        freed = []
        for block_id in reversed(block_table):
            self.touched.add(block_id)
            ref_count = self.blocks[block_id].ref_count
            self.emit(ev.BlockReleased(seq.seq_id, block_id, ref_count))
            if ref_count == 0:
                freed.append(block_id)
        # nano-vllm puts each freed block at the tail, as BlockReleased says; a policy may put some
        # at the head instead (vLLM: the blocks without a hash), and a freed block at the head says so
        gone = set(freed)
        if freed and self.free_block_ids[0] in gone and (queued or list(self.free_block_ids) != freed):
            head = []
            for block_id in self.free_block_ids:
                if block_id not in gone or len(head) == len(freed):
                    break
                head.append(block_id)
            self.emit(ev.FreedToHead(seq.seq_id, tuple(head)))

    def may_append(self, seq: Sequence):
        self._seq_id = seq.seq_id
        before = len(seq.block_table)
        super().may_append(seq)
        if len(seq.block_table) > before:
            self.emit(ev.BlockAppended(seq.seq_id, seq.block_table[-1]))

    def hash_blocks(self, seq: Sequence):
        start = seq.num_cached_tokens // self.block_size
        end = (seq.num_cached_tokens + seq.num_scheduled_tokens) // self.block_size
        if start == end:  # no block filled up this step (most decode steps): nothing to register or report
            super().hash_blocks(seq)  # (a policy may keep its own books here)
            return
        owners = {}
        parent = self.blocks[seq.block_table[start - 1]].hash if start > 0 else -1
        h = parent
        for i in range(start, end):  # who owned each hash before: a duplicate (#219) takes the entry over
            h = self.compute_hash(seq.block(i), h)
            owners[i] = self.hash_to_block_id.get(h, -1)
        super().hash_blocks(seq)
        for i in range(start, end):
            block = self.blocks[seq.block_table[i]]
            self.touched.add(block.block_id)
            replaced = owners[i] if owners[i] != block.block_id else -1
            self.emit(ev.HashRegistered(seq.seq_id, block.block_id, i, block.hash, parent, replaced))
            parent = block.hash


@cache
def recording_class(block_manager: type[BlockManager]) -> type[BlockManager]:
    """The recording's BlockManager over a policy's class (one class per policy); over SGLang's
    tree, with the tree's own events (instrumented_radix.py)."""
    bases = (RadixRecording, Recording) if issubclass(block_manager, SglangBlockManager) else (Recording,)
    return type(f"Recording{block_manager.__name__}", (*bases, block_manager),
                {"__module__": __name__, "policy_class": block_manager})


RecordingBlockManager = recording_class(BlockManager)   # over nano-vllm's own


class RecordingScheduler(PolicyScheduler):

    def __init__(self, config, emit: Emit, policy: str | Policy = "nano-vllm", *, fast_free_queue: bool | None = None):
        self.emit = emit
        super().__init__(config, policy, fast_free_queue=fast_free_queue)

    def make_block_manager(self, num_blocks: int, block_size: int) -> BlockManager:
        bm = recording_class(self.policy.block_manager)(num_blocks, block_size, self.emit)
        return with_free_queue(bm, self.fast_free_queue)

    def add(self, seq: Sequence):
        super().add(seq)
        self.emit(ev.RequestAdded(seq.seq_id, seq.num_prompt_tokens))

    def schedule(self) -> tuple[list[Sequence], bool]:
        seqs, is_prefill = super().schedule()
        self.emit(ev.Scheduled(is_prefill, tuple(s.seq_id for s in seqs),
                               tuple(s.num_scheduled_tokens for s in seqs), tuple(s.num_cached_tokens for s in seqs)))
        return seqs, is_prefill

    def preempt(self, seq: Sequence):
        self.emit(ev.Preempted(seq.seq_id))
        super().preempt(seq)

    def postprocess(self, seqs: list[Sequence], token_ids: list[int], is_prefill: bool):
        lengths = [len(seq) for seq in seqs]
        super().postprocess(seqs, token_ids, is_prefill)
        for seq, token_id, length in zip(seqs, token_ids, lengths):
            self.emit(ev.TokenSampled(seq.seq_id, token_id, kept=len(seq) > length))
            if seq.status == SequenceStatus.FINISHED:
                reason = "eos" if (not seq.ignore_eos and token_id == self.eos) else "length"
                self.emit(ev.Finished(seq.seq_id, reason))
