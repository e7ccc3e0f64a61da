"""Recorder and timeline: one frame per step, exact snapshots, instant seeking, cursor rules."""
import random

import pytest

from blockviz.sim import Simulator
from blockviz.recording import events as ev
from tests.recording.reference import engine_picture


def busy_sim(seed: int = 0, num_requests: int = 24) -> Simulator:
    """Shared prefixes, a small token budget and a small pool: chunking, hits and preemption."""
    rng = random.Random(seed)
    sim = Simulator(num_blocks=10, block_size=2, max_num_batched_tokens=5, max_num_seqs=3)
    prefixes = [[1, 2, 3, 1, 2], [3, 3, 1], [2, 1, 2, 1, 2, 1]]
    for _ in range(num_requests):
        prompt = rng.choice(prefixes)[:rng.randint(1, 6)] + [rng.randint(1, 3) for _ in range(rng.randint(0, 3))]
        script = [rng.choice([0, 1, 2, 3]) for _ in range(6)]  # 0 is EOS
        sim.add(prompt, max_tokens=rng.randint(1, 6), script=script)
    return sim


def test_every_recorded_snapshot_equals_a_fresh_copy_and_never_changes_later():
    sim = busy_sim()
    kinds = set()
    saved = [sim.snapshot(0).plain()]
    while not sim.is_finished():
        frame = sim.step()
        kinds |= {e.kind for e in frame.events}
        assert frame.snapshot.plain() == engine_picture(sim, frame.snapshot)
        saved.append(frame.snapshot.plain())
    assert {"preempt", "revive", "share"} <= kinds  # the workload reached what it is meant to
    # later steps never changed what an earlier step's picture says
    assert [f.snapshot.plain() for f in sim.frames] == saved
    assert [f.step for f in sim.frames] == list(range(len(sim.frames)))
    assert sim.last_step == sim.num_steps


def test_seek_back_then_forward_gives_identical_snapshots():
    sim = busy_sim(seed=1)
    sim.run()
    recorded = [sim.snapshot(i) for i in range(sim.last_step + 1)]
    assert sim.cursor == sim.last_step
    sim.seek(0)
    assert sim.snapshot() == recorded[0]
    for i in range(1, sim.last_step + 1):
        frame = sim.forward()
        assert sim.cursor == i and frame.snapshot == recorded[i] and sim.snapshot() == recorded[i]
    for i in reversed(range(sim.last_step)):
        assert sim.back().snapshot == recorded[i]
    assert sim.back().snapshot == recorded[0] and sim.cursor == 0  # back at 0 stays
    mid = sim.last_step // 2
    assert sim.seek(mid).snapshot == recorded[mid]
    assert sim.seek(-1).snapshot == recorded[-1] and sim.cursor == sim.last_step
    assert sim.num_steps == sim.last_step  # seeking never ran the engine


def test_forward_past_the_end_runs_the_engine():
    sim = Simulator(num_blocks=8, block_size=4)
    sim.add("hello", max_tokens=3)
    assert (sim.last_step, sim.num_steps, sim.cursor) == (0, 0, 0)
    frame = sim.forward()
    assert (sim.last_step, sim.num_steps, sim.cursor) == (1, 1, 1)
    assert frame is sim.frames[1]
    sim.back()
    assert sim.forward() is sim.frames[1] and sim.num_steps == 1  # recorded: no engine step
    while not sim.is_finished():
        sim.forward()
    end = sim.last_step
    assert sim.forward() is sim.frames[end] and sim.last_step == end  # finished: nothing to run


def test_step_follows_the_cursor_only_at_the_end():
    sim = Simulator(num_blocks=8, block_size=4)
    sim.add("hello world", max_tokens=4)
    sim.step()
    assert sim.cursor == 1
    sim.seek(0)
    sim.step()
    assert sim.cursor == 0 and sim.last_step == 2  # a learner looking back is not dragged forward


def test_frame_zero_is_refreshed_by_adds_before_the_first_step():
    sim = Simulator(num_blocks=8, block_size=4)
    assert len(sim.frames) == 1 and sim.snapshot(0).seqs == {} and sim.events(0) == ()
    a = sim.add("abc", max_tokens=2)
    b = sim.add("defgh", max_tokens=2)
    assert len(sim.frames) == 1
    snap = sim.snapshot(0)
    assert snap.waiting == (a.seq_id, b.seq_id) and set(snap.seqs) == {a.seq_id, b.seq_id}
    assert sim.events(0) == (ev.RequestAdded(a.seq_id, 3), ev.RequestAdded(b.seq_id, 5))
    sim.step()
    before = sim.frames[0]
    c = sim.add("ij", max_tokens=1)
    assert sim.frames[0] is before and len(sim.frames) == 2  # after the first step, history stays as it was
    frame = sim.step()
    assert ev.RequestAdded(c.seq_id, 2) in frame.events
    assert c.seq_id in frame.snapshot.seqs


def test_every_step_has_its_schedule_event():
    sim = busy_sim(seed=2)
    sim.run()
    assert sim.frames[0].events and not any(isinstance(e, ev.Scheduled) for e in sim.frames[0].events)
    for frame in sim.frames[1:]:
        scheduled = [e for e in frame.events if isinstance(e, ev.Scheduled)]
        assert len(scheduled) == 1
        (s,) = scheduled
        assert s.is_prefill == frame.snapshot.is_prefill
        assert dict(zip(s.seq_ids, s.num_tokens)) == {k: n for k, (_, n) in frame.snapshot.scheduled.items()}
        assert sum(isinstance(e, ev.StepTimed) for e in frame.events) == 1
        sampled = [e.seq_id for e in frame.events if isinstance(e, ev.TokenSampled)]
        assert sampled == list(s.seq_ids)


def test_listeners_hear_cursor_moves_and_new_frames():
    sim = Simulator(num_blocks=8, block_size=4)
    heard = []
    sim.on_change(heard.append)
    sim.add("abcdef", max_tokens=2)
    sim.step()
    sim.seek(0)
    sim.forward()
    assert heard == [0, 1, 0, 1]


def test_step_when_finished_is_an_error():
    sim = Simulator(num_blocks=4, block_size=2)
    with pytest.raises(RuntimeError):
        sim.step()
    assert len(sim.frames) == 1
