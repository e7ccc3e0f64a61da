"""Simulator: recording on or off computes the same thing; bad requests change nothing."""
import copy

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from blockviz.sim import Simulator


def engine_state(sim: Simulator) -> dict:
    bm = sim.scheduler.block_manager
    order = {seq_id: i for i, seq_id in enumerate(sim.seqs)}
    return {
        "blocks": [(b.ref_count, b.hash, list(b.token_ids)) for b in bm.blocks],
        "free": list(bm.free_block_ids),
        "used": set(bm.used_block_ids),
        "map": dict(bm.hash_to_block_id),
        "seqs": [(list(s.token_ids), list(s.block_table), s.num_cached_tokens, s.status) for s in sim.seqs.values()],
        "waiting": [order[s.seq_id] for s in sim.scheduler.waiting],
        "running": [order[s.seq_id] for s in sim.scheduler.running],
    }


request = st.tuples(
    st.sampled_from([[1, 2, 1, 2, 3], [3, 1, 1], [2, 2, 2, 2, 1, 1]]),  # shared prefixes
    st.integers(1, 6),                                                   # prefix length kept
    st.lists(st.integers(1, 3), max_size=3),                             # suffix
    st.integers(1, 5),                                                   # max_tokens
    st.lists(st.integers(0, 3), max_size=5),                             # script (0 is EOS)
    st.booleans(),                                                       # ignore_eos
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests=st.lists(request, min_size=1, max_size=12), block_size=st.integers(1, 3),
       num_blocks=st.integers(5, 9), budget=st.integers(1, 8), max_num_seqs=st.integers(1, 3),
       rule=st.sampled_from(["echo", "count"]))
def test_recording_on_and_off_give_identical_runs(requests, block_size, num_blocks, budget, max_num_seqs, rule):
    sims = [Simulator(num_blocks=num_blocks, block_size=block_size, max_num_batched_tokens=budget,
                      max_num_seqs=max_num_seqs, rule=rule, record=record) for record in (False, True)]
    for prefix, keep, suffix, max_tokens, script, ignore_eos in requests:
        outcomes = []
        for sim in sims:
            try:
                sim.add(prefix[:keep] + suffix, max_tokens=max_tokens, script=script, ignore_eos=ignore_eos)
                outcomes.append("added")
            except ValueError:
                outcomes.append("rejected")  # can never fit this pool
        assert outcomes[0] == outcomes[1]
    plain, recorded = sims
    assert engine_state(plain) == engine_state(recorded)
    live = [core(plain.snapshot())]  # what the unrecorded engine looked like after each step
    steps = 0
    while not plain.is_finished():
        assert plain.step() is None
        if steps % 3 == 0:
            frame = recorded.step()  # builds frames up to here now
            assert frame is recorded.frames[-1]
        else:
            assert recorded.run(max_steps=1) == 1  # frames of these steps are replayed later
        assert engine_state(plain) == engine_state(recorded)
        live.append(core(plain.snapshot()))
        steps += 1
        assert steps < 500
    assert recorded.is_finished()
    assert [s.completion_token_ids for s in plain.seqs.values()] == \
        [s.completion_token_ids for s in recorded.seqs.values()]
    # every frame, replayed through the instrumented engine, shows exactly the live state
    assert len(recorded.frames) == len(live)
    assert [core(f.snapshot) for f in recorded.frames] == live


def core(snapshot) -> tuple:
    """A snapshot without the per-step extras (is_prefill, scheduled) a live read does not have,
    with requests named by arrival order (two sessions number their requests differently)."""
    index = {seq_id: i for i, seq_id in enumerate(snapshot.seqs)}
    seqs = [(index[v.seq_id], *v.plain()[1:]) for v in snapshot.seqs.values()]
    return (snapshot.step, list(snapshot.blocks), snapshot.free_block_ids, set(snapshot.used_block_ids),
            dict(snapshot.hash_to_block_id), seqs, [index[i] for i in snapshot.waiting],
            [index[i] for i in snapshot.running])


def test_run_returns_steps_and_finishes_everything():
    sim = Simulator(num_blocks=6, block_size=2, max_num_batched_tokens=3)
    seqs = [sim.add("abcde", max_tokens=3), sim.add("abcxy", max_tokens=2)]
    steps = sim.run()
    assert steps == sim.num_steps == sim.last_step
    assert all(s.is_finished for s in seqs)
    assert [s.num_completion_tokens for s in seqs] == [3, 2]
    assert sim.run() == 0


def test_scripts_and_rules_decide_the_tokens():
    sim = Simulator(num_blocks=8, block_size=4, rule="count")
    a = sim.add([5, 6, 7], max_tokens=4, script=[40, 41])
    b = sim.add("hi", max_tokens=3, script="!\0")  # "\0" is EOS: b stops after two tokens
    sim.run()
    assert a.completion_token_ids == [40, 41, 42, 43]
    assert b.completion_token_ids == [ord("!"), 0]


def session_state(sim: Simulator):
    frames = [(f.step, f.events, f.snapshot.plain(), f.payload) for f in sim.frames]  # built now, so later frames are compared too
    return (len(sim.frames), frames, dict(sim.labels), list(sim.seqs), copy.deepcopy(sim.scripts),
            list(sim.pending_arrivals), len(sim.step_records), engine_state(sim), sim.num_steps, sim.cursor)


@pytest.mark.parametrize("steps_before", [0, 1])
def test_add_that_can_never_fit_changes_nothing(steps_before):
    sim = Simulator(num_blocks=3, block_size=4)  # 12 token slots
    sim.add("abcd", max_tokens=2)
    for _ in range(steps_before):
        sim.step()
    before = session_state(sim)
    with pytest.raises(ValueError, match="never"):
        sim.add("abcdefgh", max_tokens=6, script="xyz")  # 8 + 6 - 1 = 13 tokens: 4 blocks > 3
    assert session_state(sim) == before
    with pytest.raises(ValueError):
        sim.add("abcdefghijklm", max_tokens=1)  # the prompt alone is 4 blocks
    assert session_state(sim) == before
    with pytest.raises(ValueError):
        sim.add("abcdefghijklm", max_tokens=1, label="big", script=[1, 2])
    assert session_state(sim) == before
    nxt = sim.add("xy", max_tokens=1)
    assert sim.labels[nxt.seq_id] == "B"  # the failed adds used no label


def test_add_that_fits_exactly_at_its_longest_is_accepted():
    sim = Simulator(num_blocks=3, block_size=4)
    seq = sim.add("abcdefgh", max_tokens=5)  # 8 + 5 - 1 = 12 tokens: exactly 3 blocks
    sim.run()
    assert seq.is_finished and seq.num_completion_tokens == 5


@pytest.mark.parametrize("kwargs", [{"block_size": 0}, {"num_blocks": 0}, {"max_num_batched_tokens": 0},
                                    {"max_num_seqs": 0}, {"rule": "nope"}])
def test_bad_simulator_settings(kwargs):
    with pytest.raises(ValueError):
        Simulator(**kwargs)


def test_empty_prompt_is_rejected():
    sim = Simulator(num_blocks=4, block_size=2)
    with pytest.raises(ValueError):
        sim.add("")
    with pytest.raises(ValueError):
        sim.add([])
    assert sim.seqs == {} and sim.scheduler.is_finished()


def test_package_exports_llm_lazily():
    import subprocess
    import sys
    code = ("import sys, blockviz; assert 'torch' not in sys.modules; "
            "from blockviz import LLM; assert 'torch' in sys.modules; print(LLM.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "LLM"
