"""The replay's engine (TraceSimulator: packed prompts, packed_hash, a constant output token, quiet
steps taken at once) decides exactly as the plain Simulator: on random small traces, under every
policy, the same cached tokens at every admission, the same preemptions, the same finishing steps,
the same clock after every step and the same pool at the end."""
from copy import deepcopy

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from blockviz import policies
from blockviz.engine.sequence import Sequence
from blockviz.traffic.replay import TRACE_STEP_TIME, refused_requests, replay, served_part, workload_of
from blockviz.traffic.simulator import TraceSimulator, output_rule
from blockviz.workload import play

from tests.traffic.strategies import id_tree_traces


def traces():
    """Any lengths, bursts, outputs long enough to cross blocks."""
    return id_tree_traces(max_requests=14, max_ids=4, max_output=900, gaps_ms=(0, 0, 5, 40, 300))


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
    assert fast.played.seconds_at == plain.seconds_at   # the same float additions, step by step
    fast_pool, plain_pool = fast.engine.scheduler.block_manager, engine.scheduler.block_manager
    assert list(fast_pool.free_block_ids) == list(plain_pool.free_block_ids)
    assert [(b.hash, b.ref_count) for b in fast_pool.blocks] == [(b.hash, b.ref_count) for b in plain_pool.blocks]
    assert fast_pool.hash_to_block_id == plain_pool.hash_to_block_id
    kept = np.flatnonzero(~fast.refused)
    assert fast.cached_tokens[kept].tolist() == [s.first_cached_tokens for s in plain.served]
    stepped = replay(trace, pool, block_size, policy, arrivals, tokens_per_id, max_num_seqs=seqs,
                     max_num_batched_tokens=batched, every_step=True)
    assert stepped.played.seconds_at == fast.played.seconds_at and stepped.cached_tokens.tolist() == fast.cached_tokens.tolist()
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


def visible_state(engine: TraceSimulator) -> tuple:
    """Everything a step can change but the running requests' token counts."""
    bm, scheduler = engine.scheduler.block_manager, engine.scheduler
    return (list(bm.free_block_ids), dict(bm.hash_to_block_id), [(b.hash, b.ref_count) for b in bm.blocks],
            [(s.status, tuple(s.block_table)) for s in (*scheduler.waiting, *scheduler.running)])


def before_each_step(engine: TraceSimulator, arrivals: dict[int, list]):
    """Add each request at its step, yielding before each step for the caller to run it (one step or
    several); an idle engine jumps to the next arrival. Ends when every request has finished."""
    arrivals = dict(arrivals)
    while arrivals or not engine.is_finished():
        for prompt, max_tokens in arrivals.pop(engine.num_steps, []):
            engine.add(prompt, max_tokens=max_tokens, ignore_eos=True)
        if engine.is_finished():
            engine.num_steps = min(arrivals)
            continue
        yield


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(policies.names()), st.sampled_from([1, 2, 4, 8]), st.integers(2, 40), st.integers(1, 3),
       st.lists(st.tuples(st.integers(1, 30), st.integers(1, 40), st.integers(0, 6)), min_size=1, max_size=6))
def test_quiet_steps_are_the_steps_that_change_only_tokens(policy, block_size, blocks, max_num_seqs, requests):
    """Before every step, quiet_steps() counts the next steps that change nothing but token counts
    (reference: nano-vllm's scheduler stepped one step at a time), up to the next arrival; 0 while a
    request waits (its admission may come at any step); and run_quiet leaves the engine as those
    steps do."""
    def engine():
        e = TraceSimulator(num_blocks=blocks, block_size=block_size, max_num_seqs=max_num_seqs, policy=policy)
        e.config.max_model_len = 80
        return e
    arrivals = {}
    for prompt_len, max_tokens, at in requests:
        if -(-(prompt_len + max_tokens - 1) // block_size) <= blocks:   # it can ever fit
            arrivals.setdefault(at, []).append((np.arange(1, prompt_len + 1) % 7 + 1, max_tokens))
    plain, states, changed = engine(), {}, {}
    for _ in before_each_step(plain, arrivals):
        step, states[plain.num_steps] = plain.num_steps, visible_state(plain)
        plain.advance()
        changed[step] = visible_state(plain) != states[step]
    fast = engine()
    for _ in before_each_step(fast, arrivals):
        step = fast.num_steps
        assert visible_state(fast) == states[step]
        unchanged = next(i for i in range(len(changed) + 1) if changed.get(step + i, True))
        until = min((at - step for at in arrivals if at > step), default=unchanged + 1)
        quiet = fast.quiet_steps()
        if fast.scheduler.waiting:
            assert quiet == 0
        elif policy == "sglang":   # a filled block changes nothing in SGLang's pool before the request ends
            assert min(quiet, until) <= min(unchanged, until)
        else:
            assert min(quiet, until) == min(unchanged, until)
        if quiet:
            fast.run_quiet(min(quiet, until))
        else:
            fast.advance()
    assert visible_state(fast) == visible_state(plain) and fast.num_steps == plain.num_steps
    with pytest.raises(ValueError, match="only the next 0 steps are quiet"):
        fast.run_quiet(1)
