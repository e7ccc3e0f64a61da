"""The replay's engine (TraceSimulator: packed prompts, packed_hash, a constant output token) decides
exactly as the plain Simulator: on random small traces, under every policy, the same cached tokens at
every admission, the same preemptions, the same finishing steps and the same number of steps."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from blockviz import policies
from blockviz.engine.sequence import Sequence
from blockviz.traffic.lengths import HASH_BLOCK
from blockviz.traffic.replay import TRACE_STEP_TIME, refused_requests, replay, served_part, workload_of
from blockviz.traffic.simulator import TraceSimulator, output_rule
from blockviz.traffic.trace import Trace
from blockviz.workload import play


@st.composite
def traces(draw):
    """Prompts walking a small random tree of ids (so they share prefixes), any lengths, bursts."""
    children: dict = {}
    rows, next_id, clock = [], 0, 0
    for _ in range(draw(st.integers(1, 14))):
        ids, parent = [], None
        for _ in range(draw(st.integers(1, 4))):
            known = children.setdefault(parent, [])
            if known and draw(st.booleans()):
                h = draw(st.sampled_from(known))
            else:
                next_id += draw(st.integers(1, 3))
                h = next_id
                known.append(h)
            ids.append(h)
            parent = h
        clock += draw(st.sampled_from([0, 0, 5, 40, 300]))
        rows.append((clock, HASH_BLOCK * (len(ids) - 1) + draw(st.integers(1, HASH_BLOCK)),
                     draw(st.integers(1, 900)), ids))
    offsets = np.cumsum([0] + [len(r[3]) for r in rows])
    return Trace("random", np.array([r[0] for r in rows], dtype=np.float64), np.array([r[1] for r in rows]),
                 np.array([r[2] for r in rows]), offsets, np.array([h for r in rows for h in r[3]], dtype=np.int64))


def plain_play(trace, pool, block_size, tokens_per_id, arrivals, max_num_seqs, max_num_batched_tokens, policy):
    """The plain Simulator (lists of ids, nano-vllm's compute_hash), every request queued at its time
    by the driver's own loop, the requests the replay refuses left out."""
    kept = served_part(trace, ~refused_requests(trace, pool, block_size, tokens_per_id))
    workload = workload_of(kept, pool, block_size, tokens_per_id, arrivals, max_num_seqs, max_num_batched_tokens)
    engine = workload.simulator(eos=-1, rule=output_rule, record=False, policy=policy)
    played = play(workload, engine, TRACE_STEP_TIME)
    return played, engine


@settings(max_examples=60, deadline=None)
@given(traces(), st.sampled_from(policies.names()), st.sampled_from([(2, 4), (4, 4), (8, 4), (3, 8), (16, 16)]),
       st.integers(6, 90), st.sampled_from(["timestamps", "in-order"]), st.sampled_from([1, 2, 512]),
       st.sampled_from([16, 64, 16384]))
def test_the_fast_path_decides_as_the_plain_engine(trace, policy, sizes, blocks, arrivals, seqs, batched):
    block_size, tokens_per_id = sizes
    pool = blocks * block_size
    fast = replay(trace, pool, block_size, policy, arrivals, tokens_per_id, max_num_seqs=seqs,
                  max_num_batched_tokens=batched)
    assert isinstance(fast.engine, TraceSimulator)
    plain, engine = plain_play(trace, pool, block_size, tokens_per_id, arrivals, seqs, batched, policy)
    served = fast.played.served
    assert [s.cached_at_admission for s in served] == [s.cached_at_admission for s in plain.served]
    assert [s.preemptions for s in served] == [s.preemptions for s in plain.served]
    assert [s.finished_step for s in served] == [s.finished_step for s in plain.served]
    assert fast.steps == engine.num_steps
    if arrivals == "timestamps" and fast.steps:
        assert fast.seconds == pytest.approx(plain.seconds_at[-1])
    kept = np.flatnonzero(~fast.refused)
    assert fast.cached_tokens[kept].tolist() == [s.first_cached_tokens for s in plain.served]
    if policies.get(policy).records:   # the same replay on the plain engine, recorded for the views
        recorded = replay(trace, pool, block_size, policy, arrivals, tokens_per_id, record=True, max_num_seqs=seqs,
                          max_num_batched_tokens=batched)
        assert recorded.cached_tokens.tolist() == fast.cached_tokens.tolist() and recorded.steps == fast.steps


def test_only_packed_prompts_enter_the_fast_engine():
    engine = TraceSimulator(num_blocks=8, block_size=4)
    with pytest.raises(ValueError, match="compares packed blocks"):
        engine.add_sequence(Sequence([1, 2, 3], block_size=4))
    with pytest.raises(ValueError, match="1-D array of token ids, and no script"):
        engine.add([1, 2, 3])
    with pytest.raises(ValueError, match="1-D array of token ids, and no script"):
        engine.add(np.array([1, 2]), script=[3])
    with pytest.raises(ValueError, match=r"prompt\[1\] = -4 is not a token id"):
        engine.add(np.array([1, -4]))
    assert not engine.seqs and not engine.scheduler.waiting   # nothing was added
    seq = engine.add(np.array([1, 2, 3]), max_tokens=2)
    assert engine.run() == 2 and seq.completion_token_ids == [0, 0]   # a prefill step, a decode step
