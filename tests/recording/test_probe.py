"""CacheProbe outcomes (hit_used / hit_free / miss / mismatch / not_probed / skipped) and CanAllocate."""
import pytest

from blockviz.config import Config
from blockviz.engine.block_manager import BlockManager
from blockviz.engine.sequence import Sequence
from blockviz.sampling_params import SamplingParams
from blockviz.recording import events as ev
from blockviz.recording.instrumented import RecordingBlockManager, RecordingScheduler
from blockviz.recording.probe import probe_chain

B = 2
EOS = 0


class Engine:
    """A RecordingScheduler with helpers to run requests through it."""

    def __init__(self, num_blocks: int = 8):
        self.events: list[ev.Event] = []
        self.sched = RecordingScheduler(Config(num_kvcache_blocks=num_blocks, kvcache_block_size=B, eos=EOS),
                                        self.events.append)
        self.bm: RecordingBlockManager = self.sched.block_manager

    def add(self, tokens: list[int], max_tokens: int = 1) -> Sequence:
        seq = Sequence(tokens, SamplingParams(max_tokens=max_tokens, ignore_eos=True), block_size=B)
        self.sched.add(seq)
        return seq

    def step(self, token: int = 9):
        seqs, is_prefill = self.sched.schedule()
        self.sched.postprocess(seqs, [token] * len(seqs), is_prefill)

    def probe_events(self, seq: Sequence) -> list[ev.CacheProbe]:
        return [e for e in self.events if isinstance(e, ev.CacheProbe) and e.seq_id == seq.seq_id]

    def admit(self, seq: Sequence) -> list[str]:
        """Outcomes of the probes the admission of seq emitted."""
        self.events.clear()
        self.step()
        return [p.outcome for p in self.probe_events(seq)]


def test_hit_used_and_not_probed():
    eng = Engine()
    a = eng.add([1, 2, 3, 4, 5], max_tokens=3)
    eng.step()  # a is prefilled and keeps running: its two full blocks are cached and used
    b = eng.add([1, 2, 3, 4, 6])
    assert eng.admit(b) == ["hit_used", "hit_used", "not_probed"]
    probes = eng.probe_events(b)
    assert [p.block_id for p in probes[:2]] == a.block_table[:2]
    assert [p.hash for p in probes[:2]] == [eng.bm.blocks[i].hash for i in a.block_table[:2]]
    assert probes[2].block_id == -1


def test_hit_free():
    eng = Engine()
    eng.add([1, 2, 3, 4, 5])
    eng.step()  # max_tokens 1: a finishes, its blocks are freed with their content
    h0 = BlockManager.compute_hash([1, 2])
    cached = [eng.bm.hash_to_block_id[h0], eng.bm.hash_to_block_id[BlockManager.compute_hash([3, 4], h0)]]
    assert set(cached) <= set(eng.bm.free_block_ids)
    b = eng.add([1, 2, 3, 4, 6])
    assert eng.admit(b) == ["hit_free", "hit_free", "not_probed"]
    assert [p.block_id for p in eng.probe_events(b)[:2]] == cached
    assert [(e.kind, e.block_id) for e in eng.events if isinstance(e, (ev.BlockRevived, ev.BlockShared))] == \
        [("revive", cached[0]), ("revive", cached[1])]


def test_miss_then_skipped():
    eng = Engine()
    eng.add([1, 2, 3, 4, 5])
    eng.step()
    b = eng.add([7, 7, 3, 4, 5, 6, 1])  # block 0 differs, so blocks 1 and 2 are never looked up
    assert eng.admit(b) == ["miss", "skipped", "skipped", "not_probed"]


def test_hit_then_miss_stops_the_walk():
    eng = Engine()
    eng.add([1, 2, 3, 4, 5, 6, 7])
    eng.step()
    b = eng.add([1, 2, 8, 8, 5, 6, 7])  # block 2 has the same tokens as before, but a different prefix
    assert eng.admit(b) == ["hit_free", "miss", "skipped", "not_probed"]
    assert [e.result for e in eng.events if isinstance(e, ev.CanAllocate) and e.seq_id == b.seq_id] == [1]


def test_mismatch_on_real_hash_collision(monkeypatch):
    # a hash function that collides on everything: only the token check can tell blocks apart
    monkeypatch.setattr(BlockManager, "compute_hash", classmethod(lambda cls, token_ids, prefix=-1: 7))
    eng = Engine()
    a = eng.add([1, 2, 3, 4, 5], max_tokens=3)
    eng.step()
    b = eng.add([5, 6, 7, 8, 9], max_tokens=3)
    assert eng.admit(b) == ["mismatch", "skipped", "not_probed"]
    probe = eng.probe_events(b)[0]
    assert probe.hash == 7 and probe.block_id in a.block_table
    assert b.block_table and not set(b.block_table) & set(a.block_table)  # no false sharing


def test_mismatch_on_edited_block_tokens():
    eng = Engine()
    eng.add([1, 2, 3, 4, 5])
    eng.step()
    first = eng.bm.hash_to_block_id[BlockManager.compute_hash([1, 2])]
    eng.bm.blocks[first].token_ids = [2, 1]  # as if another prefix had produced the same hash
    b = eng.add([1, 2, 3, 4, 6])
    probes = probe_chain(eng.bm, b)
    assert [p.outcome for p in probes] == ["mismatch", "skipped", "not_probed"]
    assert probes[0].block_id == first
    assert eng.admit(b) == ["mismatch", "skipped", "not_probed"]
    assert [e.result for e in eng.events if isinstance(e, ev.CanAllocate) and e.seq_id == b.seq_id] == [0]


def test_single_block_prompt_is_only_not_probed():
    eng = Engine()
    b = eng.add([1, 2])
    assert eng.admit(b) == ["not_probed"]


def test_probe_chain_hashes_every_block_and_changes_nothing():
    eng = Engine()
    eng.add([1, 2, 3, 4, 5])
    eng.step()
    seq = Sequence([1, 2, 9, 9, 5, 6, 7], block_size=B)
    state = ([b.ref_count for b in eng.bm.blocks], list(eng.bm.free_block_ids), dict(eng.bm.hash_to_block_id))
    probes = probe_chain(eng.bm, seq)
    h, chain = -1, []
    for i in range(seq.num_blocks):
        h = BlockManager.compute_hash(seq.block(i), h)
        chain.append(h)
    assert [p.hash for p in probes] == chain  # skipped and not_probed blocks get their hash too
    assert state == ([b.ref_count for b in eng.bm.blocks], list(eng.bm.free_block_ids), dict(eng.bm.hash_to_block_id))


@pytest.mark.parametrize("num_blocks,running,probe", [
    (8, [], [1, 2, 3, 4, 5]),               # cold: 0
    (8, [[1, 2, 3, 4, 5]], [1, 2, 3, 4, 9]),  # shares 2 used blocks
    (3, [[1, 2, 3, 4, 5]], [1, 2, 3, 4, 9]),  # pool full but the hits are shared: needs 1 block, has 0 -> -1
    (4, [[1, 2, 3, 4, 5]], [1, 2, 3, 4, 9]),  # ... and with 1 free block it fits
    (4, [[7, 7, 7]], [1, 2, 3, 4, 5, 6]),   # no hits, 3 blocks needed, 2 free -> -1
])
def test_can_allocate_event_reports_the_return_value(num_blocks, running, probe):
    events: list[ev.Event] = []
    bm = RecordingBlockManager(num_blocks, B, events.append)
    for tokens in running:
        seq = Sequence(tokens, block_size=B)
        bm.allocate(seq, bm.can_allocate(seq))
        seq.num_scheduled_tokens = seq.num_tokens
        bm.hash_blocks(seq)
        seq.num_cached_tokens = seq.num_tokens
    seq = Sequence(probe, block_size=B)
    events.clear()
    result = bm.can_allocate(seq)
    reports = [e for e in events if isinstance(e, ev.CanAllocate)]
    assert len(reports) == 1
    assert reports[0].result == result
    assert reports[0].seq_id == seq.seq_id
    assert reports[0].num_free_blocks == len(bm.free_block_ids)
    # and the same integer as the faithful BlockManager in the same state
    plain = BlockManager(num_blocks, B)
    for tokens in running:
        s = Sequence(tokens, block_size=B)
        plain.allocate(s, plain.can_allocate(s))
        s.num_scheduled_tokens = s.num_tokens
        plain.hash_blocks(s)
    assert plain.can_allocate(Sequence(probe, block_size=B)) == result


def test_can_allocate_results_cover_minus_one_and_hits():
    """The parametrized cases above are not vacuous: they reach -1, 0 and a positive count."""
    results = set()
    for num_blocks, running, probe in [(8, [], [1, 2, 3]), (3, [[1, 2, 3, 4, 5]], [1, 2, 3, 4, 9]),
                                       (8, [[1, 2, 3, 4, 5]], [1, 2, 3, 4, 9])]:
        bm = BlockManager(num_blocks, B)
        for tokens in running:
            s = Sequence(tokens, block_size=B)
            bm.allocate(s, 0)
            s.num_scheduled_tokens = s.num_tokens
            bm.hash_blocks(s)
        results.add(bm.can_allocate(Sequence(probe, block_size=B)))
    assert results == {-1, 0, 2}


def test_probe_chain_with_a_known_chain_is_the_same_walk():
    from blockviz.engine.block_manager import BlockManager
    from blockviz.engine.sequence import Sequence
    from blockviz.sampling_params import SamplingParams
    from blockviz.recording.probe import chain_of, probe_chain
    bm = BlockManager(8, 4)
    first = Sequence([1, 2, 3, 4, 5, 6, 7, 8, 9], SamplingParams(max_tokens=2), block_size=4)
    bm.allocate(first, bm.can_allocate(first))
    first.num_scheduled_tokens = len(first)
    bm.hash_blocks(first)
    second = Sequence([1, 2, 3, 4, 5, 6, 7, 0, 9, 9], SamplingParams(max_tokens=2), block_size=4)
    walk = probe_chain(bm, second)
    assert [p.outcome for p in walk] == ["hit_used", "miss", "not_probed"]
    assert probe_chain(bm, second, chain_of(bm, second)) == walk
