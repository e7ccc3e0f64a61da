"""Each request's cache hit at admission, read from the events, stays after the request finishes
(nano-vllm's num_cached_tokens goes back to 0 at deallocate)."""
from hypothesis import given, settings as hsettings, strategies as st

from blockviz import Simulator
from blockviz.demo.hits import HitLedger
from blockviz.hits import AdmissionWatch
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


def test_under_sglang_a_page_cached_only_in_the_tree_counts_as_cached_not_shared():
    sim = Simulator(num_blocks=32, block_size=4, policy="sglang")
    a = sim.add(PREFIX + "A", max_tokens=6)
    sim.step()
    b = sim.add(PREFIX + "B", max_tokens=2)  # while A runs: its pages in the tree, held by A
    sim.run()
    c = sim.add(PREFIX + "C", max_tokens=2)  # after both finished: the pages are in the tree only
    sim.run()
    ledger = HitLedger(4, radix=True)
    ledger.update(sim)
    hits = ledger.by_seq
    assert hits[a.seq_id].blocks == 0
    assert (hits[b.seq_id].hit_used, hits[b.seq_id].hit_free) == (7, 0)
    assert (hits[c.seq_id].hit_used, hits[c.seq_id].hit_free) == (0, 7)
    assert all(hit.radix and not hit.probes for hit in hits.values())   # no hash chain was walked
    for seq in (a, b, c):
        hit = hits[seq.seq_id]
        assert hit.tokens == cached_at_admission(sim, seq.seq_id, hit.step)
    assert ledger.tokens_saved == 56
    prompt_tokens = sum(len(PREFIX) + 1 for _ in range(3))
    assert ledger.prefill_tokens == prompt_tokens - 56


@hsettings(max_examples=40, deadline=None)
@given(st.sampled_from(["nano-vllm", "sglang"]), st.integers(16, 32),
       st.lists(st.tuples(st.integers(0, 2), st.integers(1, 9), st.integers(1, 8)), min_size=1, max_size=8))
def test_the_ledger_counts_what_allocate_found_at_every_admission(policy, num_blocks, requests):
    """Whatever the policy, pool and preemptions: the ledger's tokens at each admission are what the
    BlockManager's allocate set num_cached_tokens to (AdmissionWatch, live), in total and for each
    request's latest admission, and its blocks split into held-by-another and cached-only."""
    sim = Simulator(num_blocks=num_blocks, block_size=4, policy=policy)
    live: dict[int, list[int]] = {}
    watch = AdmissionWatch(sim.scheduler, lambda seq, tokens: live.setdefault(seq.seq_id, []).append(tokens))
    prefixes = ["shared system prompt here ", "another prefix ", ""]
    for k, (prefix, own, max_tokens) in enumerate(requests):
        sim.add(prefixes[prefix] + f"r{k}" * own, max_tokens=max_tokens)
    ledger = HitLedger(4, radix=policy == "sglang")
    while not sim.is_finished():
        sim.step()
        ledger.update(sim)
    watch.close()
    assert ledger.tokens_saved == sum(sum(tokens) for tokens in live.values())
    assert {seq_id: hit.tokens for seq_id, hit in ledger.by_seq.items()} == \
        {seq_id: tokens[-1] for seq_id, tokens in live.items()}
    assert all(hit.admissions == len(live[seq_id]) for seq_id, hit in ledger.by_seq.items())
    assert all(hit.blocks * 4 == hit.tokens for hit in ledger.by_seq.values())
