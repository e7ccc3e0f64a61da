"""Each request's cache hit at admission, read from the events, stays after the request finishes
(nano-vllm's num_cached_tokens goes back to 0 at deallocate)."""
from blockviz import Simulator
from blockviz.demo.hits import HitLedger
from blockviz.recording.events import Scheduled

PREFIX = "the same long system prompt "  # 28 characters: 7 blocks of 4


def cached_at_admission(sim, seq_id: int, step: int) -> int:
    """What allocate set num_cached_tokens to: the snapshot's value minus this step's computed tokens."""
    computed = sum(n for e in sim.events(step) if isinstance(e, Scheduled)
                   for s, n in zip(e.seq_ids, e.num_tokens) if s == seq_id)
    return sim.snapshot(step).seqs[seq_id].num_cached_tokens - computed


def test_hits_on_used_and_free_blocks_are_kept_after_the_requests_finish():
    sim = Simulator(num_blocks=32, block_size=4)
    a = sim.add(PREFIX + "A", max_tokens=6)
    sim.step()
    b = sim.add(PREFIX + "B", max_tokens=2)  # while A runs: hits on used blocks (shared)
    sim.run()
    c = sim.add(PREFIX + "C", max_tokens=2)  # after both finished: hits on free blocks (revived)
    sim.run()
    ledger = HitLedger(4)
    ledger.update(sim)
    hits = ledger.by_seq
    assert hits[a.seq_id].blocks == 0
    assert (hits[b.seq_id].hit_used, hits[b.seq_id].hit_free) == (7, 0)
    assert (hits[c.seq_id].hit_used, hits[c.seq_id].hit_free) == (0, 7)
    for seq in (a, b, c):
        hit = hits[seq.seq_id]
        assert hit.tokens == cached_at_admission(sim, seq.seq_id, hit.step)
        assert sim.snapshot().seqs[seq.seq_id].num_cached_tokens == 0  # what the snapshot alone would show
    assert [outcome for _, outcome, _, _ in hits[c.seq_id].probes][:7] == ["hit_free"] * 7
    assert ledger.tokens_saved == 56
    prompt_tokens = sum(len(PREFIX) + 1 for _ in range(3))
    assert ledger.prefill_tokens == prompt_tokens - 56
    assert ledger.hit_rate == 56 / prompt_tokens


def test_the_ledger_reads_each_frame_once_and_counts_preemptions():
    sim = Simulator(num_blocks=6, block_size=4)
    for k in range(3):
        sim.add(f"request {k} text", max_tokens=8)
    ledger = HitLedger(4)
    while not sim.is_finished():
        sim.step()
        ledger.update(sim)  # every step, as the live page does
    again = HitLedger(4)
    again.update(sim)      # all at once
    assert ledger.by_seq == again.by_seq and ledger.preemptions == again.preemptions
    preempted = sum(e.kind == "preempt" for s in range(sim.last_step + 1) for e in sim.events(s))
    assert ledger.preemptions == preempted > 0
    assert any(hit.admissions > 1 for hit in ledger.by_seq.values())
