"""Keyframes in a trace file: a loaded trace opens at any step by replaying from the keyframe
before it, and every picture it shows then equals the full copy of the engine at that step
(less the requests that had finished before the keyframe, which it does not keep)."""
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from blockviz.sim import Simulator
from blockviz.recording.format import TraceError
from blockviz.recording.io import TraceWriter, load_trace
from tests.recording.test_history import run_and_copy, same, workloads


def without_finished_before(copy: dict, resumed: dict | None) -> dict:
    if resumed is None:
        return copy
    gone = {q[0] for q in resumed["seqs"] if q[6] == "finished"}
    return {**copy, "seqs": [q for q in copy["seqs"] if q[0] not in gone]}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(**workloads, every=st.integers(1, 4), order=st.randoms(use_true_random=False))
def test_pictures_from_keyframes_equal_full_copies_in_any_seek_order(tmp_path_factory, requests, block_size,
                                                                     num_blocks, budget, max_num_seqs, every, order):
    path = tmp_path_factory.mktemp("k") / "trace.jsonl"
    sim, copies = run_and_copy(requests, block_size, num_blocks, budget, max_num_seqs, record_to=path,
                               keyframe_every=every)
    sim.close()
    loaded = load_trace(path)
    assert loaded.keyframe_steps == list(range(every, sim.num_steps + 1, every))
    loaded.frames.JUMP = 1  # jump to any keyframe ahead, so small traces take every path
    steps = list(copies)
    order.shuffle(steps)
    for step in steps:
        loaded.frames.cache.clear()
        frame = loaded.frames[step]
        resumed = loaded.frames.resumed_at
        assert resumed is None or resumed < step
        assert same(frame.snapshot, without_finished_before(copies[step], None if resumed is None else copies[resumed]))
        assert frame.events == sim.events(step)
    assert loaded.first_step == 0


def test_a_cold_seek_to_the_end_replays_only_from_the_last_keyframe(tmp_path):
    path = tmp_path / "t.jsonl"
    sim = Simulator(num_blocks=64, block_size=4, max_num_seqs=4, record_to=path)
    sim.trace_writer().keyframe_every = 10
    for i in range(12):
        sim.add(f"request {i} " * 3, max_tokens=20)
    sim.run()
    sim.close()
    loaded = load_trace(path)
    assert loaded.last_step == sim.last_step > 40
    frame = loaded.seek(loaded.last_step)
    history = loaded.frames.rebuilder.history
    assert loaded.frames.resumed_at == max(k for k in loaded.keyframe_steps if k < loaded.last_step)
    assert history.num_steps - history.first_step <= 11  # at most the steps after that keyframe
    assert frame.snapshot.free_block_ids == sim.snapshot(sim.last_step).free_block_ids
    assert loaded.seek(3).snapshot == sim.snapshot(3)  # back before it: from step 0 again
    assert loaded.frames.resumed_at is None


def test_save_writes_no_keyframes_but_every_label(tmp_path):
    sim = Simulator(num_blocks=16, block_size=4)
    sim.add("the cat sat on the mat", max_tokens=5)
    sim.run()
    sim.add("later", max_tokens=1)  # added after the last step: kept as pending
    sim.save(tmp_path / "t.jsonl")
    assert '"keyframe"' not in (tmp_path / "t.jsonl").read_text()
    loaded = load_trace(tmp_path / "t.jsonl")
    assert loaded.keyframe_steps == [] and [a.label for a in loaded.pending_arrivals] == ["B"]
    assert list(loaded.labels.values()) == ["A", "B"]  # every request the file names, pending too


def test_the_writer_spends_at_most_a_share_of_the_run_on_keyframes(tmp_path):
    sim = Simulator(num_blocks=256, block_size=4, max_num_seqs=8, record_to=tmp_path / "t.jsonl")
    for i in range(40):
        sim.add(f"a longer request number {i} " * 2, max_tokens=30)
    sim.run()
    sim.close()
    loaded = load_trace(tmp_path / "t.jsonl")
    gaps = [b - a for a, b in zip([0] + loaded.keyframe_steps, loaded.keyframe_steps)]
    assert gaps and all(g >= TraceWriter.MIN_KEYFRAME_GAP for g in gaps)


def keyframe_trace(tmp_path):
    path = tmp_path / "t.jsonl"
    sim = Simulator(num_blocks=12, block_size=4, record_to=path)
    sim.trace_writer().keyframe_every = 4
    sim.add("the cat sat on the mat", max_tokens=10)
    sim.add("the cat sat on a hat", max_tokens=10)
    sim.run()
    sim.close()
    return path, path.read_text().splitlines()


@pytest.mark.parametrize("edit, message", [
    (lambda k: k["free"].append(999), "free: a block id is outside the pool"),
    (lambda k: k["free"].pop(), "(?:but is in use|has no reference)"),  # a freed block taken out of the queue
    (lambda k: k["seqs"][0].__setitem__(7, "lost"), "status must be waiting or running"),
    (lambda k: k["seqs"][0][6].append(-3), "block id is outside the pool"),
    (lambda k: k["seqs"][0][4].__setitem__(0, -1), "token id is out of range"),
    (lambda k: k["running"].clear(), "the queues must list every request"),
    (lambda k: k["seqs"][0][6].__setitem__(0, k["free"][0]), "block_table holds block .*in the free queue"),
    (lambda k: k["hash_map"][0].__setitem__(1, next(b[0] for b in k["blocks"] if b[2] != k["hash_map"][0][0])),
     "hash_map: hash .* points at block .* whose hash is"),
])
def test_a_wrong_keyframe_names_its_line_and_field_when_used(tmp_path, edit, message):
    path, lines = keyframe_trace(tmp_path)
    i = next(i for i, line in enumerate(lines) if line.startswith('{"keyframe": 4') or line.startswith('{"keyframe":4'))
    keyframe = json.loads(lines[i])
    assert keyframe["running"], "the scenario needs running requests at the keyframe"
    edit(keyframe)
    lines[i] = json.dumps(keyframe, separators=(",", ":"))
    path.write_text("\n".join(lines) + "\n")
    loaded = load_trace(path)
    loaded.frames.JUMP = 1
    with pytest.raises(TraceError, match=rf"line {i + 1} \(keyframe at step 4\): .*{message}"):
        loaded.seek(6)


def test_a_keyframe_must_follow_its_step(tmp_path):
    path, lines = keyframe_trace(tmp_path)
    i = next(i for i, line in enumerate(lines) if line.startswith('{"keyframe":4'))
    lines.insert(2, lines.pop(i))
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(TraceError, match="a keyframe follows the line of its step"):
        load_trace(path)
