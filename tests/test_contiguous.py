"""blockviz.contiguous against runs worked out by hand (the comments are the working)."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blockviz import Simulator
from blockviz.contiguous import ContiguousPool, Usage, paged_usage, requests_of, run_contiguous
from blockviz.workload import Request


def req(label: str, num_prompt_tokens: int, max_tokens: int, arrival: int = 0) -> Request:
    """A request of `num_prompt_tokens` tokens that comes after `arrival` steps have run."""
    return Request(list(range(1, num_prompt_tokens + 1)), max_tokens, arrival=arrival, label=label)


def test_first_fit_takes_the_lowest_free_range_that_is_long_enough():
    pool = ContiguousPool(10)
    assert pool.allocate(3) == 0          # [0, 3)
    assert pool.allocate(4) == 3          # [3, 7)
    assert pool.allocate(4) is None       # only [7, 10) is left: 3 slots
    pool.release(0)
    assert pool.free_ranges() == [(0, 3), (7, 3)]
    assert pool.allocate(2) == 0          # the lowest range that fits, not the tightest
    assert pool.allocate(3) == 7
    assert pool.free_ranges() == [(2, 1)] and pool.reserved == 9
    with pytest.raises(ValueError, match="no range starts at slot 5"):
        pool.release(5)


def test_max_model_len_reservations_admit_only_what_fits_whole():
    # 8 slots, every request reserves max_model_len = 4: two at a time.
    requests = [req("A", 2, 2), req("B", 1, 3), req("C", 3, 1)]
    run = run_contiguous(requests, num_slots=8, max_model_len=4)
    assert run.usage == [
        Usage(0, 0, 3, 0, 0, 0),
        Usage(1, 2, 1, 8, 3, 0),  # prefill A [0,4) and B [4,8): their prompts, 2 + 1; C has no range
        Usage(2, 1, 1, 4, 2, 1),  # C still has none, so decode: A's 2nd token ends it, B holds 2
        Usage(3, 1, 0, 4, 2, 2),  # C prefills into A's old range and ends at once (max_tokens 1)
        Usage(4, 0, 0, 0, 0, 3),  # B's 3rd token
    ]
    assert [(h.request.label, h.start, h.size) for h in run.held[1]] == [("A", 0, 4), ("B", 4, 4)]
    assert run.num_steps == 4


def test_own_size_reservations_leave_free_slots_no_range_can_use():
    # reserve="request": prompt + max_tokens. A [0,3) B [3,6) C [6,10); D needs 5.
    requests = [req("A", 2, 1), req("B", 1, 2), req("C", 3, 1), req("D", 3, 2)]
    run = run_contiguous(requests, num_slots=10, max_model_len=5, reserve="request")
    assert run.usage[1] == Usage(1, 1, 1, 3, 1, 2)  # A and C end at their prefill; B holds [3,6)
    # step 2: 7 slots are free, in ranges of 3 and 4: D (5) still waits; B decodes and ends
    assert run.usage[2] == Usage(2, 0, 1, 0, 0, 3)
    assert run.usage[3] == Usage(3, 1, 0, 5, 3, 3) and run.held[3][0].start == 0
    assert run.usage[4] == Usage(4, 0, 0, 0, 0, 4)


def test_a_request_waits_for_its_arrival_and_admission_follows_the_batch_limits():
    requests = [req("A", 2, 2), req("B", 2, 1, arrival=1), req("C", 2, 1, arrival=1)]
    run = run_contiguous(requests, num_slots=12, max_model_len=4, max_num_seqs=2)
    assert run.usage[1] == Usage(1, 1, 0, 4, 2, 0)   # B and C arrive after step 1: step 2 may schedule them
    assert run.usage[2] == Usage(2, 1, 1, 4, 2, 1)   # B joins (max_num_seqs 2: C may not) and ends at once
    assert run.usage[3] == Usage(3, 1, 0, 4, 2, 2)   # C the same
    assert run.usage[4] == Usage(4, 0, 0, 0, 0, 3)   # only now a decode step: A's 2nd token
    by_tokens = run_contiguous([req("A", 3, 1), req("B", 3, 1)], num_slots=12, max_model_len=4,
                               max_num_batched_tokens=5)
    assert by_tokens.usage[1] == Usage(1, 0, 1, 0, 0, 1)  # 3 + 3 > 5: B's prompt waits for step 2


@pytest.mark.parametrize("request_, message", [
    (lambda: req("A", 4, 2), r"request 1 \(A\): prompt \(4\) \+ max_tokens \(2\) = 6 exceeds max_model_len=5"),
    (lambda: req("A", 0, 2), "prompt is empty"),
    (lambda: req("A", 2, 2, arrival=-1), "arrival must be a number >= 0"),
])
def test_impossible_requests_are_refused_by_name(request_, message):
    with pytest.raises(ValueError, match=message):
        run_contiguous([request_()], num_slots=10, max_model_len=5)
    with pytest.raises(ValueError, match="could never be admitted"):
        run_contiguous([req("A", 2, 2)], num_slots=4, max_model_len=5)
    with pytest.raises(ValueError, match="reserve must be one of"):
        run_contiguous([req("A", 2, 2)], num_slots=10, max_model_len=5, reserve="half")


def test_paged_usage_counts_whole_blocks_reserved_and_a_shared_block_once():
    sim = Simulator(num_blocks=6, block_size=4)
    sim.add("abcdefgh", max_tokens=3)   # A: 8 prompt tokens, blocks a0 a1
    sim.step()
    sim.add("abcdefgh", max_tokens=2)   # B: its first block hits a0 (the last block is never probed)
    sim.run()
    abcdefgh = [ord(c) for c in "abcdefgh"]
    assert requests_of(sim) == [Request(abcdefgh, 3, arrival=0, label="A"), Request(abcdefgh, 2, arrival=1, label="B")]
    usage = paged_usage(sim)
    assert usage[1] == Usage(1, 1, 0, 8, 8, 0)      # A prefilled: 2 blocks, 8 slots computed; B not yet here
    assert usage[2] == Usage(2, 2, 0, 12, 12, 0)    # B: a0 shared + b1; a0 counted once (not 16)
    # decode: A's and B's 9th tokens each open a block (9 % 4 == 1); B's is its 2nd token, so B ends
    # and its blocks go back (a0 keeps A's reference): A holds 3 blocks, 9 slots computed
    assert usage[3] == Usage(3, 1, 0, 12, 9, 1)
    assert usage[-1].admitted == 0 and usage[-1].reserved == 0 and usage[-1].finished == 2


requests_strategy = st.lists(st.tuples(st.integers(1, 6), st.integers(1, 6), st.integers(0, 4)), min_size=1, max_size=8).map(
    lambda rows: [req("ABCDEFGH"[i], *row) for i, row in enumerate(rows)])


@settings(max_examples=60, deadline=None)
@given(requests_strategy, st.integers(12, 40), st.sampled_from(["max_model_len", "request"]))
def test_ranges_never_overlap_and_every_request_finishes(requests, num_slots, reserve):
    run = run_contiguous(requests, num_slots=num_slots, max_model_len=12, reserve=reserve)
    assert run.usage[-1].finished == len(requests) and run.usage[-1].reserved == 0
    for usage, held in zip(run.usage, run.held):
        spans = sorted((h.start, h.start + h.size) for h in held)
        assert all(end <= start for (_, end), (start, _) in zip(spans, spans[1:]))
        assert spans == [] or spans[-1][1] <= num_slots
        assert usage.used <= usage.reserved == sum(h.size for h in held)
        assert all(h.computed < h.size for h in held)  # the range is never outgrown


@pytest.mark.parametrize("lang, word", [("en", "reserved, not used"), ("zh", "预留但未用")])
def test_the_figures_draw_both_policies_in_either_language(lang, word):
    import matplotlib
    matplotlib.use("Agg")
    from blockviz.lessons import contiguous_pool_figure, usage_figure
    run = run_contiguous([req("A", 2, 2), req("B", 1, 3)], num_slots=8, max_model_len=4)
    pool = contiguous_pool_figure(run.held[1], 8, columns=4, lang=lang)
    texts = [t.get_text() for t in pool.axes[0].texts] + [t.get_text() for t in pool.axes[0].get_legend().get_texts()]
    assert "A" in texts and "B" in texts and word in texts
    chart = usage_figure(run.usage, run.usage, 8, lang=lang)
    assert len(chart.axes) == 2 and all(ax.get_legend() is not None for ax in chart.axes)
