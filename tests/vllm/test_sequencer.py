from blockviz.vllm.sequencer import Sequencer


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
