"""Every step's picture from the recording equals an independent full copy of the engine at that
step: read in any order, after save and load, and on both sides of a bounded history's edge."""
import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from blockviz.sim import Simulator
from blockviz.recording.io import load_trace
from blockviz.recording.versions import Versions
from tests.recording.reference import engine_picture

request = st.tuples(st.sampled_from([[1, 2, 1, 2, 3], [3, 1, 1], [2, 2, 2, 2, 1, 1]]), st.integers(0, 6),
                    st.lists(st.integers(1, 3), max_size=3), st.integers(1, 6),
                    st.lists(st.integers(0, 3), max_size=5))


def run_and_copy(requests, block_size, num_blocks, budget, max_num_seqs, history=None, arrive_every=2,
                 record_to=None, keyframe_every=None):
    """Run a session, adding requests as it goes; return it and the engine's state after each step."""
    sim = Simulator(num_blocks=num_blocks, block_size=block_size, max_num_batched_tokens=budget,
                    max_num_seqs=max_num_seqs, history=history, record_to=record_to)
    if keyframe_every is not None:
        sim.trace_writer().keyframe_every = keyframe_every
    copies = {}
    pending = list(requests)

    def add_some():
        for _ in range(arrive_every):
            if pending:
                prefix, keep, suffix, max_tokens, script = pending.pop(0)
                try:
                    sim.add(prefix[:keep] + suffix or [1], max_tokens=max_tokens, script=script)
                except ValueError:
                    pass  # can never fit this pool

    add_some()
    copies[0] = engine_picture(sim)
    while pending or not sim.is_finished():
        add_some()
        if sim.is_finished():
            continue
        if sim.num_steps == 0:
            copies[0] = engine_picture(sim)  # frame 0 shows every request that came before step 1
        sim.run(max_steps=1)
        copies[sim.num_steps] = engine_picture(sim)
        assert sim.num_steps < 400
    return sim, copies


def same(snapshot, copy: dict) -> bool:
    plain = snapshot.plain()
    return {k: v for k, v in plain.items() if k not in ("is_prefill", "scheduled")} == \
        {k: v for k, v in copy.items() if k not in ("is_prefill", "scheduled")}


workloads = dict(requests=st.lists(request, min_size=1, max_size=10), block_size=st.integers(1, 3),
                 num_blocks=st.integers(5, 9), budget=st.integers(2, 8), max_num_seqs=st.integers(1, 3))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**workloads, order=st.randoms(use_true_random=False))
def test_every_picture_equals_a_full_copy_in_any_seek_order(requests, block_size, num_blocks, budget,
                                                            max_num_seqs, order):
    sim, copies = run_and_copy(requests, block_size, num_blocks, budget, max_num_seqs)
    steps = list(copies)
    order.shuffle(steps)
    for step in steps:  # frames are built in order the first time; afterwards any order reads them
        assert same(sim.seek(step).snapshot, copies[step])
    # requests that arrive between steps appear in the picture of the step that follows
    for step in steps:
        copy_ids = [q[0] for q in copies[step]["seqs"]]
        assert list(sim.snapshot(step).seqs) == copy_ids


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(**workloads)
def test_pictures_survive_save_and_load(tmp_path_factory, requests, block_size, num_blocks, budget, max_num_seqs):
    sim, copies = run_and_copy(requests, block_size, num_blocks, budget, max_num_seqs)
    path = tmp_path_factory.mktemp("t") / "trace.jsonl"
    sim.save(path)
    loaded = load_trace(path)
    for step in reversed(list(copies)):
        assert same(loaded.snapshot(step), copies[step])
        assert loaded.events(step) == sim.events(step)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**workloads, history=st.integers(1, 6))
def test_a_bounded_history_keeps_exact_pictures_of_its_window(requests, block_size, num_blocks, budget,
                                                               max_num_seqs, history):
    sim, copies = run_and_copy(requests, block_size, num_blocks, budget, max_num_seqs, history=history)
    first = sim.first_step
    assert sim.last_step - first + 1 >= min(history, sim.last_step + 1)
    for step, copy in copies.items():
        if step < first:
            with pytest.raises(IndexError, match="no longer kept"):
                sim.seek(step)
            continue
        snap = sim.snapshot(step)
        # requests that finished before the window are gone from it; everything else is exact
        kept = {q[0] for q in copy["seqs"]} & set(snap.seqs)
        plain, ref = snap.plain(), dict(copy)
        ref["seqs"] = [q for q in copy["seqs"] if q[0] in kept]
        assert {k: v for k, v in plain.items() if k not in ("is_prefill", "scheduled")} == \
            {k: v for k, v in ref.items() if k not in ("is_prefill", "scheduled")}
        dropped = {q[0] for q in copy["seqs"]} - kept
        assert all(sim.seqs.get(i) is None or sim.seqs[i].is_finished for i in dropped)


def test_bounded_history_lets_go_of_old_steps():
    sim = Simulator(num_blocks=64, block_size=4, history=20, rule="count")
    rng = random.Random(0)
    for _ in range(60):
        sim.add([rng.randrange(1, 50) for _ in range(rng.randrange(1, 12))], max_tokens=rng.randrange(1, 20))
        sim.run(max_steps=3)
    sim.run()
    assert 20 <= sim.last_step - sim.first_step + 1 <= 25
    assert len(sim.step_records) <= 25 and len(sim.frames.rebuilder.history.packed) <= 25
    rebuilder = sim.frames.rebuilder
    assert set(sim.seqs) == set(rebuilder.seqs) == set(rebuilder.history.seqs) == set(sim.labels)
    assert len(sim.seqs) < 60  # the requests finished before the window are gone from all three
    with pytest.raises(IndexError, match="bounded history"):
        sim.seek(0)
    assert sim.seek(sim.first_step).step == sim.first_step


def test_history_must_be_a_positive_number_of_steps():
    for bad in (0, -3, True, 2.5, "10"):
        with pytest.raises(ValueError, match="history"):
            Simulator(history=bad)


def test_versions_keep_the_value_at_every_step_and_forget_only_what_no_later_step_reads():
    v = Versions()
    for step, value in [(0, "a"), (3, "b"), (3, "c"), (5, "c"), (7, "a")]:
        v.set(step, value)
    assert [v.at(s) for s in range(9)] == ["a", "a", "a", "c", "c", "c", "c", "a", "a"]
    v.set(7, "c")  # changed back within the step: no version for it
    assert list(v.steps) == [0, 3] and v.at(8) == "c" and v.last_step == 3
    v.forget_before(4)
    assert v.at(4) == "c" and list(v.steps) == [3] and v.at(2) is None
    one = Versions()
    assert one.at(5, "none") == "none" and one.last is None and one.last_step == -1
    one.set(4, "x")
    one.set(4, "y")  # a single version, changed within its step
    assert (one.at(3), one.at(4), one.last, one.last_step) == (None, "y", "y", 4)
