"""The one hit ledger: cached tokens at admission, counted live (AdmissionWatch), from a recording
(admitted) and by the demo and the metrics view that read it, all equal to an independent count
made by stepping nano-vllm's scheduler by hand; hit rates that say their denominator."""
import random

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from blockviz import hits
from blockviz.demo.hits import HitLedger
from blockviz.engine.sequence import SequenceStatus
from blockviz.sim import Simulator
from blockviz.views.render_metrics import metrics_rows
from blockviz.workload import Request, Workload, play


def workload(seed: int, n: int = 14) -> Workload:
    """Shared prefixes on a small pool and budget: hits on used and free blocks, chunks, preemptions."""
    rng = random.Random(seed)
    prefixes = [[1, 2, 3, 1, 2, 3, 1], [3, 3, 1, 2], [2, 1, 2, 1, 2, 1, 2, 1]]
    requests = [Request(rng.choice(prefixes)[:rng.randint(1, 8)] + [rng.randint(1, 3) for _ in range(rng.randint(0, 3))],
                        max_tokens=rng.randint(1, 6), arrival=rng.randint(0, 10), ignore_eos=True)
                for _ in range(n)]
    return Workload(block_size=2, num_blocks=12, requests=requests, max_num_seqs=3, max_num_batched_tokens=6,
                    when_idle="advance")


def counted_by_hand(w: Workload, policy: str, added_step: list[int]) -> dict[int, list[int]]:
    """Cached tokens at each admission, per request in arrival order, without blockviz.hits: each
    request added before the step the driver added it at; the requests with no block table before
    a schedule() that hold one after it were just allocated, and their num_cached_tokens is
    allocate's (postprocess has not run)."""
    sim = w.simulator(policy=policy, record=False, eos=-1)
    order, out, i = {}, {}, 0
    while i < len(w.requests) or not sim.is_finished():
        while i < len(w.requests) and added_step[i] <= sim.num_steps:
            r = w.requests[i]
            order[sim.add(r.prompt, max_tokens=r.max_tokens, ignore_eos=True).seq_id] = i
            i += 1
        bare = [s for s in sim.scheduler.waiting if not s.block_table]
        seqs, is_prefill = sim.scheduler.schedule()
        for s in bare:
            if s.block_table:
                out.setdefault(order[s.seq_id], []).append(s.num_cached_tokens)
        sim.scheduler.postprocess(seqs, sim.compute(seqs, is_prefill), is_prefill)
        sim.num_steps += 1
    return out


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(["nano-vllm", "vllm"]))
def test_every_count_of_cached_tokens_at_admission_agrees(seed, policy):
    w = workload(seed)
    played = play(w, w.simulator(policy=policy, eos=-1))
    by_hand = counted_by_hand(w, policy, [s.added_step for s in played.served])
    live = {i: s.cached_at_admission for i, s in enumerate(played.served)}
    assert live == by_hand
    assert [s.first_cached_tokens for s in played.served] == [by_hand[i][0] for i in range(len(w.requests))]

    sim, B = played.engine, w.block_size
    index = {s.seq.seq_id: i for i, s in enumerate(played.served)}
    recorded: dict[int, list[int]] = {}
    for step in range(1, sim.last_step + 1):
        for seq_id, blocks in hits.admitted(sim.events(step)).items():
            recorded.setdefault(index[seq_id], []).append(blocks * B)
    assert recorded == by_hand

    ledger = HitLedger(B)   # the demo: the latest admission per request, and every admission's tokens
    ledger.update(sim)
    assert {index[i]: h.tokens for i, h in ledger.by_seq.items()} == {i: c[-1] for i, c in by_hand.items()}
    assert {index[i]: h.admissions for i, h in ledger.by_seq.items()} == {i: len(c) for i, c in by_hand.items()}
    assert ledger.tokens_saved == sum(map(sum, by_hand.values()))
    assert metrics_rows(sim.frames)[-1].hit_tokens == ledger.tokens_saved   # the metrics view


def test_hit_rates_say_their_denominator():
    rate = hits.hit_rate([0, 8, 4], [10, 10, 20])
    assert (rate.cached_tokens, rate.out_of, rate.denominator, rate.value) == (12, 40, hits.PROMPT_TOKENS, 0.3)
    assert float(rate) == 0.3 and str(rate) == "30.0% of 40 prompt tokens"
    assert hits.hit_rate([], []).value == 0.0
    assert hits.running_hit_rates([10, 10, 20], [0, 8, 4]) == [0.0, 0.4, 0.3]
    bins, rates = hits.binned_hit_rates(np.array([0, 0, 2]), np.array([10, 10, 20]), np.array([0, 8, 4]))
    assert bins.tolist() == [0, 2] and rates.tolist() == pytest.approx([0.4, 0.2])


def test_admitted_leaves_out_a_request_that_fits_but_is_not_scheduled():
    sim = Simulator(num_blocks=16, block_size=2, max_num_batched_tokens=5)
    sim.add([1, 2, 3, 4], max_tokens=1)
    sim.add([1, 2, 3, 4, 5], max_tokens=1)   # fits the pool, not the step's token budget
    frame = sim.step()
    assert sum(e.kind == "can_allocate" and e.result >= 0 for e in frame.events) == 2
    first = next(iter(sim.seqs))
    assert hits.admitted(frame.events) == {first: 0}
    assert sim.seqs[first + 1].status == SequenceStatus.WAITING
