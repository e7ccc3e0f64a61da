"""Instrumentation never changes a result, and its events tell the whole story.

The same random workload runs on a plain Scheduler and on a RecordingScheduler; after every
schedule and every postprocess the two must agree on every block, the free queue order, the
used set, the hash map and every request. A third copy of the pool is rebuilt from the events
alone and must agree too, so no operation goes unreported.
"""
import re
from collections import deque

from hypothesis import HealthCheck, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from blockviz.config import Config
from blockviz.engine.scheduler import Scheduler
from blockviz.engine.sequence import Sequence
from blockviz.policies.scheduler import PolicyScheduler
from blockviz.sampling_params import SamplingParams
from blockviz.recording import events as ev
from blockviz.recording.instrumented import RecordingScheduler

from tests.engine.test_scheduler import engine_state

EOS = 0
VOCAB = 3
SAMPLED = st.sampled_from([1, 2, 3, 1, 2, 3, 1, 0])  # 0 (EOS) one time in eight


class EventReplica:
    """A pool rebuilt from events only."""

    def __init__(self, num_blocks: int):
        self.ref = [0] * num_blocks
        self.hash = [-1] * num_blocks
        self.free: deque[int] = deque(range(num_blocks))
        self.map: dict[int, int] = {}

    def apply(self, e: ev.Event):
        if isinstance(e, ev.BlockAllocated):
            b = e.block_id
            head = list(self.free)[:1]
            assert head == [b], f"allocate {b}: the head of the free queue is {head}"
            old = self.hash[b]
            if e.evicted_hash != -1:
                assert e.evicted_hash == old and self.map.get(old) == b and e.dropped_hash == -1
                del self.map[old]
            elif e.dropped_hash != -1:
                assert e.dropped_hash == old and self.map.get(old) != b
            else:
                assert old == -1, f"block {b} had hash {old:#x} but the allocate event reports none"
            self.free.remove(b)
            self.ref[b], self.hash[b] = 1, -1
        elif isinstance(e, ev.BlockRevived):
            assert self.ref[e.block_id] == 0 and self.hash[e.block_id] == e.hash
            self.free.remove(e.block_id)
            self.ref[e.block_id] = 1
        elif isinstance(e, ev.BlockShared):
            assert self.ref[e.block_id] >= 1 and self.hash[e.block_id] == e.hash
            self.ref[e.block_id] += 1
            assert self.ref[e.block_id] == e.ref_count
        elif isinstance(e, ev.BlockReleased):
            self.ref[e.block_id] -= 1
            assert self.ref[e.block_id] == e.ref_count >= 0
            if e.ref_count == 0:
                self.free.append(e.block_id)
        elif isinstance(e, ev.FreedToHead):   # a block policy's (vLLM's), never nano-vllm's
            assert set(e.block_ids) <= set(self.free) and all(self.ref[b] == 0 for b in e.block_ids)
            for b in e.block_ids:
                self.free.remove(b)
            self.free.extendleft(reversed(e.block_ids))
        elif isinstance(e, ev.HashRegistered):
            before = self.map.get(e.hash, -1)
            assert e.replaced_block_id == (before if before != e.block_id else -1)
            self.hash[e.block_id] = e.hash
            self.map[e.hash] = e.block_id

    def matches(self, sched: Scheduler):
        bm = sched.block_manager
        assert self.ref == [b.ref_count for b in bm.blocks]
        assert self.hash == [b.hash for b in bm.blocks]
        assert list(self.free) == list(bm.free_block_ids)
        assert self.map == bm.hash_to_block_id


PROBE_ORDER = re.compile(r"(hit_used|hit_free)*(miss|mismatch)?(skipped)*not_probed")


def check_admission_events(events: list[ev.Event]):
    """Each CanAllocate follows the probes of its request: hits form a prefix, and their count is the result."""
    probes: list[ev.CacheProbe] = []
    for e in events:
        if isinstance(e, ev.CacheProbe):
            probes.append(e)
        elif isinstance(e, ev.CanAllocate):
            assert probes and all(p.seq_id == e.seq_id for p in probes)
            assert [p.index for p in probes] == list(range(len(probes)))
            outcomes = "".join(p.outcome for p in probes)
            assert PROBE_ORDER.fullmatch(outcomes), [p.outcome for p in probes]
            hits = sum(p.outcome.startswith("hit") for p in probes)
            assert e.result in (hits, -1)
            assert e.num_new_blocks == len(probes) - sum(p.outcome == "hit_used" for p in probes)
            assert (e.result == -1) == (e.num_free_blocks < e.num_new_blocks)
            probes = []
    assert not probes


class InstrumentationMachine(RuleBasedStateMachine):
    POLICY = "nano-vllm"   # tests/policies runs this machine under the other block policies

    @initialize(block_size=st.integers(1, 4), num_blocks=st.integers(3, 10), budget=st.integers(1, 12),
                max_num_seqs=st.integers(1, 4),
                prefixes=st.lists(st.lists(st.integers(1, VOCAB), min_size=1, max_size=12), min_size=1, max_size=3))
    def setup(self, block_size, num_blocks, budget, max_num_seqs, prefixes):
        self.config = Config(num_kvcache_blocks=num_blocks, kvcache_block_size=block_size, max_num_seqs=max_num_seqs,
                             max_num_batched_tokens=budget, eos=EOS)
        self.events: list[ev.Event] = []
        self.plain = Scheduler(self.config) if self.POLICY == "nano-vllm" else PolicyScheduler(self.config, self.POLICY)
        self.rec = RecordingScheduler(self.config, self.events.append, self.POLICY)
        self.replica = EventReplica(num_blocks)
        self.prefixes = prefixes
        self.plain_seqs: list[Sequence] = []
        self.rec_seqs: list[Sequence] = []

    def compare(self):
        assert engine_state(self.plain, self.plain_seqs) == engine_state(self.rec, self.rec_seqs)

    def consume_events(self) -> list[ev.Event]:
        new = list(self.events)
        self.events.clear()
        for e in new:
            assert self.POLICY != "nano-vllm" or not isinstance(e, ev.FreedToHead)
            self.replica.apply(e)
        self.replica.matches(self.rec)
        return new

    @rule(data=st.data())
    def add(self, data):
        prefix = data.draw(st.sampled_from(self.prefixes))
        prompt = prefix[:data.draw(st.integers(1, len(prefix)))] + data.draw(st.lists(st.integers(1, VOCAB), max_size=6))
        params = SamplingParams(max_tokens=data.draw(st.integers(1, 6)), ignore_eos=data.draw(st.booleans()))
        B, N = self.config.kvcache_block_size, self.config.num_kvcache_blocks
        if -(-(len(prompt) + params.max_tokens - 1) // B) > N:
            return  # could outgrow the pool (see tests/engine/test_scheduler.py)
        a = Sequence(prompt, params, block_size=B)
        b = Sequence(prompt, params, block_size=B)
        self.plain.add(a)
        self.rec.add(b)
        self.plain_seqs.append(a)
        self.rec_seqs.append(b)
        assert self.consume_events() == [ev.RequestAdded(b.seq_id, len(prompt))]

    @rule(data=st.data())
    def step(self, data):
        if self.plain.is_finished():
            return
        seqs, is_prefill = self.plain.schedule()
        rseqs, rprefill = self.rec.schedule()
        self.compare()
        events = self.consume_events()
        check_admission_events(events)
        scheduled = [e for e in events if isinstance(e, ev.Scheduled)]
        assert scheduled == [ev.Scheduled(rprefill, tuple(s.seq_id for s in rseqs),
                                          tuple(s.num_scheduled_tokens for s in rseqs),
                                          tuple(s.num_cached_tokens for s in rseqs))]
        by_id = {s.seq_id: s for s in self.rec_seqs}
        for e in events:
            if isinstance(e, ev.Preempted):
                assert by_id[e.seq_id] in self.rec.waiting and not by_id[e.seq_id].block_table

        token_ids = data.draw(st.lists(SAMPLED, min_size=len(seqs), max_size=len(seqs)))
        # the token of a prefill chunk that leaves part of the prompt uncomputed is thrown away
        kept = [not (rprefill and s.num_cached_tokens + s.num_scheduled_tokens < s.num_tokens) for s in rseqs]
        self.plain.postprocess(seqs, token_ids, is_prefill)
        self.rec.postprocess(rseqs, token_ids, rprefill)
        self.compare()
        events = self.consume_events()
        sampled = [(e.seq_id, e.token_id, e.kept) for e in events if isinstance(e, ev.TokenSampled)]
        assert sampled == [(s.seq_id, t, k) for s, t, k in zip(rseqs, token_ids, kept)]
        finished = [(e.seq_id, e.reason) for e in events if isinstance(e, ev.Finished)]
        assert finished == [(s.seq_id, "eos" if t == EOS and not s.ignore_eos else "length")
                            for s, t in zip(rseqs, token_ids) if s.is_finished]

    @invariant()
    def same(self):
        self.compare()


InstrumentationMachine.TestCase.settings = settings(max_examples=150, stateful_step_count=50, deadline=None,
                                                    suppress_health_check=[HealthCheck.too_slow])
test_recording_never_changes_a_result = InstrumentationMachine.TestCase


def test_allocate_reports_cache_hits_before_new_blocks():
    """Events come in the order the engine acts: allocate() takes its cache hits out of the free
    queue first and only then pops fresh blocks from the head, so replaying the events in order
    must reproduce the free queue."""
    events: list[ev.Event] = []
    sched = RecordingScheduler(Config(num_kvcache_blocks=4, kvcache_block_size=2, eos=EOS), events.append)
    a = Sequence([1, 2, 3], SamplingParams(max_tokens=1), block_size=2)
    sched.add(a)
    seqs, is_prefill = sched.schedule()
    sched.postprocess(seqs, [EOS], is_prefill)  # a finishes: its full block [1, 2] stays cached in the free queue
    b = Sequence([1, 2, 5], SamplingParams(max_tokens=1), block_size=2)
    sched.add(b)
    events.clear()
    sched.schedule()
    hit = b.block_table[0]
    kinds = [(e.kind, e.block_id) for e in events if isinstance(e, (ev.BlockRevived, ev.BlockAllocated))]
    assert kinds == [("revive", hit), ("allocate", b.block_table[1])]
