"""The one workload type: its checks name the request and the field; any valid workload plays to
completion; arrivals on both clocks; admissions and preemptions as the scheduler made them."""
import pytest
from hypothesis import given, settings, strategies as st

from blockviz.limits import blocks_needed
from blockviz.workload import LazyPrompt, Request, request, Workload, linear_step_time, play

LETTERS = "abcd"


@st.composite
def workloads(draw, clock: str = "steps", when_idle: str = "advance"):
    block_size = draw(st.integers(1, 4))
    requests = []
    for _ in range(draw(st.integers(1, 6))):
        prompt = draw(st.text(LETTERS, min_size=1, max_size=10) | st.lists(st.integers(0, 5), min_size=1, max_size=10))
        arrival = draw(st.integers(0, 8)) if clock == "steps" else draw(st.floats(0, 2, allow_nan=False))
        requests.append(Request(prompt, max_tokens=draw(st.integers(1, 6)), arrival=arrival,
                                ignore_eos=draw(st.booleans())))
    largest = max(blocks_needed(r.num_prompt_tokens + r.max_tokens - 1, block_size) for r in requests)
    return Workload(block_size=block_size, num_blocks=largest + draw(st.integers(0, 4)), requests=requests,
                    max_num_seqs=draw(st.integers(1, 4)), max_num_batched_tokens=draw(st.integers(1, 24)),
                    clock=clock, when_idle=when_idle)


@settings(max_examples=120, deadline=None)
@given(workloads())
def test_any_valid_workload_plays_to_completion_on_the_simulator(workload):
    played = play(workload, workload.simulator(record=False, eos=-1))
    assert played.engine.is_finished()
    for s in played.served:
        assert s.seq.is_finished and s.seq.num_completion_tokens == s.request.max_tokens
        assert 0 <= s.added_step < s.finished_step <= played.num_steps
        # at its step, or sooner when the engine ran dry ("advance"): every request added before had finished
        assert s.added_step == s.request.arrival or (
            s.added_step < s.request.arrival and all(e.finished_step <= s.added_step
                                                     for e in played.served if e.added_step < s.added_step))
        assert len(s.cached_at_admission) == s.preemptions + 1
        assert all(0 <= c < s.request.num_prompt_tokens + s.request.max_tokens for c in s.cached_at_admission)


@settings(max_examples=120, deadline=None)
@given(workloads(when_idle="shift"))
def test_shift_keeps_the_gaps_between_arrivals_and_brings_them_sooner_only_when_the_engine_ran_dry(workload):
    played = play(workload, workload.simulator(record=False, eos=-1))
    assert played.engine.is_finished()
    sooner = 0  # steps the arrivals have come sooner so far
    for k, s in enumerate(played.served):
        assert s.seq.is_finished and 0 <= s.added_step < s.finished_step <= played.num_steps
        now = s.request.arrival - s.added_step
        assert now >= sooner  # never later than its gap to the one before says, never later than named
        if now > sooner:      # sooner still: only because every request added before had finished
            assert all(e.finished_step <= s.added_step for e in played.served[:k])
        sooner = now


def test_shift_counts_each_gap_from_the_arrival_before():
    # one request every 3 steps; the first finishes at once, so the second comes sooner, and the
    # third 3 steps after the second ("advance" would add it at its named step 6)
    requests = [Request("ab", max_tokens=1, label="A"), Request("cd", max_tokens=8, arrival=3, label="B"),
                Request("ef", max_tokens=1, arrival=6, label="C")]
    assert [s.added_step for s in play(Workload(4, 8, requests, when_idle="shift")).served] == [0, 1, 4]
    assert [s.added_step for s in play(Workload(4, 8, requests, when_idle="advance")).served] == [0, 1, 6]
    with pytest.raises(ValueError, match="when_idle"):
        Workload(4, 8, requests, when_idle="later")


@settings(max_examples=60, deadline=None)
@given(workloads(clock="seconds"))
def test_the_seconds_clock_adds_a_request_once_its_time_has_come(workload):
    played = play(workload, workload.simulator(record=False, eos=-1))
    assert played.engine.is_finished()
    times = [0.0] + played.seconds_at
    for s in played.served:
        assert s.added_s >= s.request.arrival  # never before it arrives
        # at the first step boundary at or after its time, or at its time when the engine was idle until then
        assert s.added_s == times[s.added_step] or s.added_s == s.request.arrival
        assert s.added_step == 0 or times[s.added_step - 1] < s.request.arrival
    steps = [b - a for a, b in zip(times, times[1:])]
    assert all(d >= 0.015 for d in steps)


def test_arrivals_in_steps_are_kept_and_an_idle_engine_is_refused_or_advanced():
    requests = [Request("abcd", max_tokens=1, label="A"), Request("efgh", max_tokens=1, arrival=5, label="B")]
    with pytest.raises(ValueError, match=r"idle at step 1 before request 2 \(B\) arriving at step 5"):
        play(Workload(4, 4, requests))
    played = play(Workload(4, 4, requests, when_idle="advance"))
    assert [s.added_step for s in played.served] == [0, 1]
    waiting = [Request("abcdefgh", max_tokens=4, label="A"), Request("xy", max_tokens=1, arrival=2, label="B")]
    played = play(Workload(4, 8, waiting))
    assert played.by_label("B").added_step == 2


def test_requests_are_played_in_arrival_order_ties_as_given():
    w = Workload(4, 8, [Request("a", arrival=3, label="late"), Request("b", label="x"), Request("c", label="y")],
                 when_idle="advance")
    assert [r.label for r in w.requests] == ["x", "y", "late"]


def test_a_lazy_prompt_is_made_only_when_its_request_is_added():
    made = []

    def make():
        made.append(1)
        return [7] * 9

    w = Workload(4, 8, [Request("ab", max_tokens=2), Request(LazyPrompt(9, make), max_tokens=2, arrival=1)])
    assert made == []
    played = play(w)
    assert made == [1] and list(played.served[1].seq.prompt_token_ids) == [7] * 9


def test_a_lazy_prompt_of_the_wrong_length_names_its_request():
    w = Workload(4, 8, [Request(LazyPrompt(5, lambda: [1, 2]), label="Z")])
    with pytest.raises(ValueError, match=r"request 1 \(Z\): prompt.make\(\) gave 2 token ids, not the 5"):
        play(w)


def test_cached_tokens_at_admission_and_preemptions_are_the_schedulers():
    # Two requests share two blocks; the pool is too small for both to decode to the end.
    w = Workload(4, 5, [Request("You_are_Ann", max_tokens=5, label="A"),
                        Request("You_are_Bob", max_tokens=4, arrival=1, label="B")])
    sim = w.simulator()
    played = play(w, sim)
    a, b = played.by_label("A"), played.by_label("B")
    assert a.cached_at_admission == [0] and a.preemptions == 0
    assert b.cached_at_admission[0] == 8  # "You_are_" is A's two full blocks
    assert b.preemptions == len(b.cached_at_admission) - 1 >= 1
    preempted = sum(1 for f in sim.frames for e in f.events if type(e).__name__ == "Preempted")
    assert preempted == a.preemptions + b.preemptions


def test_max_steps_and_until():
    w = Workload(4, 8, [Request("abcdefgh", max_tokens=6)])
    with pytest.raises(ValueError, match="max_steps = 2 ran out with requests still running"):
        play(w, max_steps=2)
    assert play(w, until=2).num_steps == 2
    assert play(w, until=100).num_steps == 6


def test_a_script_is_what_the_simulator_generates():
    w = Workload(4, 8, [Request("ab", max_tokens=3, script="zz", label="S")])
    assert play(w).served[0].seq.completion_token_ids[:2] == [ord("z")] * 2


def test_the_default_step_time_grows_with_the_tokens_scheduled():
    from blockviz.session import Batch
    assert linear_step_time(Batch((), False, 4)) < linear_step_time(Batch((), True, 8192))


@pytest.mark.parametrize("build, message", [
    (lambda: Request("ab", max_tokens=0), "max_tokens must be a whole number"),
    (lambda: Request("", max_tokens=1), "prompt is empty"),
    (lambda: Request([1, -1]), r"prompt\[1\] = -1 is not a token id"),
    (lambda: Request("ab", arrival=-1), "arrival must be a number >= 0"),
    (lambda: Request("ab", arrival=float("nan")), "arrival must be a number >= 0"),
    (lambda: Request("ab", label=""), "label must be printable"),
    (lambda: Request("ab", script=[1.5]), r"script\[0\] = 1.5 is not a token id"),
    (lambda: Request("ab", ignore_eos="no"), "ignore_eos must be True or False"),
    (lambda: Request(LazyPrompt(0, list)), "prompt length must be a whole number"),
    (lambda: Workload(0, 8, [Request("ab")]), "block_size must be a whole number"),
    (lambda: Workload(4, 8, [Request("ab", label="A"), Request("cd", label="A")]),
     r"request 2 \(A\): each request needs its own label; A is the label of request 1 too"),
    (lambda: request(2, prompt="ab", max_tokens="4", label="C"), r"request 3 \(C\): max_tokens must be a whole number"),
    (lambda: request(0, prompt="ab", colour=1), r"request 1: .*colour"),
    (lambda: Workload(4, 8, [Request("ab")], free_order=[0, 1]), "free_order must list every block id 0..7"),
    (lambda: Workload(4, 8, [Request("ab")], clock="hours"), "clock must be one of"),
    (lambda: Workload(4, 8, [Request("ab"), Request("ab", arrival=1.5, label="H")]),
     r"request 2 \(H\): arrival must be a whole number of steps"),
    (lambda: Workload(4, 2, [Request("ab"), Request("abcdefgh", max_tokens=4)]),
     "request 2 .8 prompt \\+ 4 max_tokens. can never fit in 2 blocks of 4"),
    (lambda: Workload(4, 8, [Request("abcd", max_tokens=4, label="L")], max_model_len=6),
     r"request 1 \(L\): prompt \(4\) \+ max_tokens \(4\) = 8 exceeds max_model_len=6"),
])
def test_invalid_fields_are_refused_with_the_field_named(build, message):
    with pytest.raises(ValueError, match=message):
        build()


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 5), st.sampled_from(["max_tokens", "arrival", "label", "ignore_eos", "prompt"]),
       st.sampled_from([-1, 0, 2.5, "", None, True, [], "x" * 50]))
def test_a_bad_field_in_any_request_names_that_request_and_field(index, name, value):
    good = [Request("abc", label=f"R{i}") for i in range(6)]
    try:
        bad = Request(**{"prompt": "abc", "label": f"R{index}", name: value})
    except ValueError as e:
        assert name.replace("_", "") in str(e).replace("_", "") or (name == "prompt" and "token" in str(e)), e
        return
    # The value is valid for the field: then the workload takes it, or names the request
    try:
        Workload(4, 16, good[:index] + [bad] + good[index + 1:])
    except ValueError as e:
        assert f"request {index + 1} (R{index})" in str(e) or str(e).startswith(f"request {index + 1}"), e


def test_on_the_turns_clock_a_turn_comes_once_every_earlier_request_has_finished():
    w = Workload(4, 16, [Request("abcd", max_tokens=3, arrival=0, label="A"), Request("efgh", max_tokens=1, label="B"),
                         Request("abcdefgh", max_tokens=1, arrival=1, label="C")], clock="turns")
    played = play(w)
    a, b, c = (played.by_label(x) for x in "ABC")
    assert a.added_step == b.added_step == 0
    assert c.added_step == max(a.finished_step, b.finished_step) == 3
    assert c.cached_at_admission == [4]  # A's first block, cached and free


def test_max_unfinished_keeps_the_others_waiting_outside_the_engine():
    w = Workload(4, 16, [Request("abcd", max_tokens=2, label=x) for x in "ABC"])
    played = play(w, max_unfinished=2)
    added = [s.added_step for s in played.served]
    assert added == [0, 0, played.served[0].finished_step]
    turns = Workload(4, 16, [Request("abcd", max_tokens=2, label=x) for x in "ABC"], clock="turns")
    assert [s.added_step for s in play(turns, max_unfinished=1).served] == [0, 2, 4]


def test_the_same_driver_plays_a_workload_on_an_llm_session():
    from blockviz import LLM
    llm = LLM(device="cpu", kvcache_block_size=4, num_kvcache_blocks=16, max_model_len=64)
    system = [11, 12, 13, 14, 15, 16, 17, 18]
    w = Workload(4, 16, [Request(system + [20], max_tokens=3, label="A", ignore_eos=True),
                         Request(LazyPrompt(10, lambda: system + [21, 22]), max_tokens=2, arrival=1, label="B",
                                 ignore_eos=True)])
    played = play(w, llm)
    a, b = played.by_label("A"), played.by_label("B")
    assert a.seq.num_completion_tokens == 3 and b.seq.num_completion_tokens == 2
    assert b.cached_at_admission == [8]  # A's two full blocks
    with pytest.raises(ValueError, match=r"request 1 \(S\): a script is for the Simulator"):
        play(Workload(4, 16, [Request([1, 2], script=[3], label="S")]), llm)
def test_admit_adds_at_most_what_it_is_asked_in_order():
    from blockviz.workload import Driver
    workload = Workload(block_size=4, num_blocks=64, requests=[Request(f"req{i}", max_tokens=2) for i in range(5)])
    with Driver(workload) as driver:
        assert [s.request.prompt for s in driver.admit(most=2)] == ["req0", "req1"]
        assert [s.request.prompt for s in driver.admit(most=2)] == ["req2", "req3"]
        assert [s.request.prompt for s in driver.admit()] == ["req4"]
        assert driver.all_added and driver.admit(most=3) == []


def test_stepped_names_the_requests_the_step_finished():
    from blockviz.workload import Driver
    workload = Workload(block_size=4, num_blocks=64, requests=[Request("ab", max_tokens=1), Request("cd", max_tokens=2)])
    with Driver(workload) as driver:
        driver.admit()
        finished = []
        while not driver.done:
            driver.engine.step()
            driver.stepped()
            finished.append([s.request.prompt for s in driver.finished])
    assert finished == [["ab"], ["cd"]]
    assert [s.finished_step for s in driver.played.served] == [1, 2]
