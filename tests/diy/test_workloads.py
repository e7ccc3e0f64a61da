"""The workloads: each one the engine runs to the end, the same for a seed, and together they reach
every case the stages must get right."""
from hypothesis import given, settings, strategies as st

from blockviz.diy.workloads import workload
from blockviz.workload import play
from blockviz.recording import events as ev


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6))
def test_every_workload_runs_to_the_end_and_is_the_same_for_its_seed(seed):
    w = workload(seed)
    assert w == workload(seed)
    sim = play(w.workload).engine
    assert sim.is_finished() and len(sim.seqs) == len(w.workload.requests)
    assert all(seq.is_finished for seq in sim.seqs.values())


def cases(seed: int) -> set[str]:
    w = workload(seed)
    found = {"weak hash"} if w.hash_values else set()
    if w.workload.free_order:
        found.add("shuffled free queue")
    sim = play(w.workload).engine
    for frame in sim.frames:
        for e in frame.events:
            if isinstance(e, ev.Preempted):
                found.add("preempted")
            elif isinstance(e, ev.BlockShared):
                found.add("hit on a used block")
            elif isinstance(e, ev.BlockRevived):
                found.add("hit on a free block")
            elif isinstance(e, ev.BlockAllocated) and e.evicted_hash != -1:
                found.add("evicted")
            elif isinstance(e, ev.BlockAllocated) and e.dropped_hash != -1:
                found.add("stale hash dropped")
            elif isinstance(e, ev.HashRegistered) and e.replaced_block_id != -1:
                found.add("duplicate took the map entry")
            elif isinstance(e, ev.BlockAppended):
                found.add("decode block")
            elif isinstance(e, ev.Scheduled) and e.is_prefill and any(
                    start + n < sim.seqs[i].num_prompt_tokens for i, n, start in zip(e.seq_ids, e.num_tokens, e.starts)):
                found.add("chunked prefill")
    return found


def test_the_first_forty_workloads_reach_every_case():
    seen = set().union(*(cases(seed) for seed in range(40)))  # a check runs 40 by default
    assert seen == {"weak hash", "shuffled free queue", "preempted", "hit on a used block", "hit on a free block",
                    "evicted", "stale hash dropped", "duplicate took the map entry", "decode block",
                    "chunked prefill"}
