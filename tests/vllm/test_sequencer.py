from hypothesis import given, settings, strategies as st

from blockviz.vllm.sequencer import MAX_GAP, Sequencer


def seqs(ready):
    return [(seq, via, lost) for seq, _, via, lost in ready]


def test_in_order_batches_pass_straight_through():
    s = Sequencer(has_replay=True)
    assert [seqs(s.live(i, b"")[0]) for i in range(3)] == [[(0, "live", 0)], [(1, "live", 0)], [(2, "live", 0)]]


def test_a_gap_is_held_and_filled_from_the_replay_in_order():
    s = Sequencer(has_replay=True)
    s.live(0, b"")
    ready, ask, _ = s.live(3, b"c")
    assert ready == [] and ask and s.next_needed == 1
    assert s.live(4, b"d") == ([], False, False)            # one replay at a time
    assert seqs(s.replayed(1, b"a") + s.replayed(2, b"b") + s.replayed(3, b"c")) == \
        [(1, "replay", 0), (2, "replay", 0), (3, "replay", 0)]
    assert seqs(s.replay_done()) == [(4, "live", 0)] and s.lost == 0


def test_what_the_replay_no_longer_has_is_counted_lost():
    s = Sequencer(has_replay=True)
    s.live(0, b"")
    s.live(5, b"")
    assert seqs(s.replayed(3, b"")) == [(3, "replay", 2)]   # 1 and 2 fell out of the publisher's buffer
    assert seqs(s.replay_done()) == [(5, "live", 1)] and s.lost == 3   # and 4 never came at all


def test_without_replay_a_gap_is_counted_and_passed_on():
    s = Sequencer(has_replay=False)
    s.live(0, b"")
    assert seqs(s.live(4, b"")[0]) == [(4, "live", 3)] and s.lost == 3


def test_duplicates_are_dropped_and_a_restart_starts_over():
    s = Sequencer(has_replay=False)
    s.live(0, b""), s.live(1, b"")
    assert s.live(1, b"")[0] == [] and s.duplicates == 1
    ready, _, restarted = s.live(0, b"new")
    assert restarted and seqs(ready) == [(0, "live", 0)] and s.restarts == 1


def test_a_late_watch_holds_live_batches_while_it_catches_up():
    s = Sequencer(has_replay=True)
    ready, ask, _ = s.live(7, b"")
    assert ready == [] and ask
    ready = [r for i in range(8) for r in s.replayed(i, b"")]
    assert [seq for seq, *_ in ready] == list(range(8))
    assert s.replay_done() == [] and s.lost == 0


def test_a_far_ahead_number_is_a_new_numbering_not_a_blindfold():
    s = Sequencer(has_replay=True)
    s.live(0, b""), s.live(1, b"")
    ready, ask, _ = s.live(2**62, b"stray")
    assert seqs(ready) == [(2**62, "live", 0)] and not ask and s.jumps == 1 and s.lost == 0
    assert "jump" in s.take_notes()[0]
    ready, ask, _ = s.live(2, b"")          # the real numbering goes on: backwards from the stray one
    assert seqs(ready) == [(2, "live", 0)] and s.backwards == 1 and "backwards" in s.take_notes()[0]
    assert seqs(s.live(3, b"")[0]) == [(3, "live", 0)] and s.take_notes() == []


def test_a_replay_answer_far_past_what_was_asked_is_ignored():
    s = Sequencer(has_replay=True)
    s.live(0, b"")
    s.live(3, b"")                          # a gap: held, replay asked from 1
    assert s.replayed(2**62, b"") == [] and "past the one asked" in s.take_notes()[0]
    assert seqs(s.replayed(1, b"") + s.replayed(2, b"") + s.replay_done()) == \
        [(1, "replay", 0), (2, "replay", 0), (3, "live", 0)]


def test_a_first_batch_numbered_far_from_zero_is_not_counted_as_lost():
    s = Sequencer(has_replay=False)
    assert seqs(s.live(2**40, b"")[0]) == [(2**40, "live", 0)] and s.lost == 0 and s.take_notes()


def test_batches_held_for_a_replay_are_capped(monkeypatch):
    from blockviz.vllm import sequencer
    monkeypatch.setattr(sequencer, "MAX_HELD", 5)
    s = Sequencer(has_replay=True)
    s.live(0, b"")
    for i in range(2, 7):
        assert s.live(i, b"")[0] == []
    assert [seq for seq, *_ in s.live(7, b"")[0]] == [2, 3, 4, 5, 6, 7] and not s.held
    assert "held" in s.take_notes()[0]


SEQ = st.integers(0, 2**64 - 1)


def drive(s: Sequencer, numbers: list[int]) -> list[int]:
    """Live batches, each replay answered with nothing at once: what was passed on."""
    passed = []
    for n in numbers:
        ready, ask, _ = s.live(n, b"")
        if ask or s.awaiting_replay:
            ready += s.replay_done()
        passed += [seq for seq, *_ in ready]
    return passed


@settings(max_examples=300, deadline=None)
@given(st.lists(SEQ, max_size=30), st.integers(0, 2**63), st.booleans())
def test_after_any_numbers_an_in_order_run_always_gets_through(numbers, base, has_replay):
    s = Sequencer(has_replay=has_replay)
    drive(s, numbers)
    run = list(range(base, base + 6))
    passed = drive(s, run)
    assert run[1:] == [n for n in passed if n in run[1:]]   # never blinded, in order, once each
    assert s.lost <= len(numbers) * MAX_GAP + 6 * MAX_GAP and not s.held


@settings(max_examples=300, deadline=None)
@given(st.lists(SEQ, max_size=40), st.booleans())
def test_every_batch_is_passed_at_most_once_and_every_jump_is_said(numbers, has_replay):
    s = Sequencer(has_replay=has_replay)
    passed = drive(s, numbers)
    assert len(passed) <= len(numbers)
    assert all(n in numbers for n in passed)
    notes = s.take_notes()
    assert len(notes) >= s.jumps + s.backwards
    assert s.duplicates + len(passed) <= len(numbers)
