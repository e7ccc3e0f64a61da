"""Traces on disk: format 2 round-trips and is appended as steps run, format 1 still loads, and a
bad file gets a TraceError naming the line or step and the field — never another exception."""
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from blockviz.scenarios import load_scenario
from blockviz.sim import Simulator
from blockviz.recording.io import TraceError, load_trace, payload_from_dict, payload_to_dict


@pytest.fixture
def sim():
    return load_scenario("preempt_rehit").run()


def same_frames(a, b):
    assert len(a.frames) == len(b.frames)
    for i in range(len(a.frames)):
        x, y = a.frames[i], b.frames[i]
        assert (x.step, x.events) == (y.step, y.events)
        assert x.snapshot.plain() == y.snapshot.plain()


def test_round_trip_keeps_every_frame(sim, tmp_path):
    path = tmp_path / "trace.jsonl"
    sim.save(path)
    loaded = load_trace(path)
    same_frames(loaded, sim)
    assert loaded.meta == sim.meta
    assert loaded.decode([104, 105]) == "hi"


def test_loaded_trace_seeks(sim, tmp_path):
    path = tmp_path / "trace.jsonl"
    sim.save(path)
    loaded = load_trace(path)
    loaded.seek(3)
    assert loaded.snapshot() == sim.snapshot(3)
    assert not loaded.can_run


def test_record_to_appends_each_step_and_a_crash_loses_at_most_the_last(tmp_path):
    path = tmp_path / "live.jsonl"
    live = Simulator(num_blocks=8, block_size=4, record_to=path)
    live.add("the cat sat on the mat", max_tokens=4)
    live.add("the cat sat on a hat", max_tokens=4)
    for steps in range(1, 4):
        live.step()
        assert len(path.read_text().splitlines()) == 1 + steps  # the header, then a line per step, flushed
    live.run()
    live.close()
    same_frames(load_trace(path), live)
    text = path.read_text()
    cut = text[:text.rstrip("\n").rfind("\n") + 20]  # the last line half written, as after a crash
    path.write_text(cut)
    partial = load_trace(path)
    assert partial.truncated and partial.last_step == live.last_step - 1
    assert partial.snapshot(partial.last_step) == live.snapshot(partial.last_step)


def test_a_half_written_keyframe_is_dropped_like_a_half_written_step(tmp_path):
    path = tmp_path / "live.jsonl"
    live = Simulator(num_blocks=8, block_size=4, record_to=path)
    live.trace_writer().keyframe_every = 3
    live.add("the cat sat on the mat", max_tokens=4)
    live.run(max_steps=3)
    lines = path.read_text().splitlines(keepends=True)
    assert lines[-1].startswith('{"keyframe":3')
    path.write_text("".join(lines[:-1]) + lines[-1][:30])
    partial = load_trace(path)
    assert partial.truncated and partial.last_step == 3 and partial.keyframe_steps == []


def test_requests_added_after_the_last_step_are_kept(tmp_path):
    path = tmp_path / "t.jsonl"
    sim = Simulator(num_blocks=8, block_size=4)
    sim.add("abcdef", max_tokens=2)
    sim.run()
    sim.add("ghij", max_tokens=1)
    sim.save(path)
    loaded = load_trace(path)
    assert loaded.last_step == sim.last_step and loaded.step_records[-1].arrivals == sim.step_records[-1].arrivals
    assert [a.label for a in loaded.pending_arrivals] == ["B"]


def v1_document(timeline) -> dict:
    """Format 1 written from its description (one document, a full picture per frame), not from io.py."""
    frames = []
    for i in range(timeline.last_step + 1):
        f = timeline.frames[i]
        s = f.snapshot
        frames.append({"step": f.step, "events": [
            {k: v for k, v in e.to_dict().items() if k != "starts"} for e in f.events], "payload": None,
            "snapshot": {"step": s.step, "block_size": s.block_size,
                         "blocks": [[b.ref_count, b.hash, list(b.token_ids)] for b in s.blocks],
                         "free": list(s.free_block_ids), "used": sorted(s.used_block_ids),
                         "map": [[h, b] for h, b in s.hash_to_block_id.items()],
                         "seqs": [{"seq_id": q.seq_id, "label": q.label, "token_ids": list(q.token_ids),
                                   "num_prompt_tokens": q.num_prompt_tokens, "num_cached_tokens": q.num_cached_tokens,
                                   "block_table": list(q.block_table), "status": q.status, "max_tokens": q.max_tokens}
                                  for q in s.seqs.values()],
                         "waiting": list(s.waiting), "running": list(s.running), "is_prefill": s.is_prefill,
                         "scheduled": [[k, a, n] for k, (a, n) in s.scheduled.items()]}})
    return {"format": "blockviz-trace", "version": 1, "meta": timeline.meta, "tokenizer": "chars", "frames": frames}


def test_format_1_still_loads(sim, tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps(v1_document(sim)))
    same_frames(load_trace(path), sim)


@pytest.mark.parametrize("change, message", [
    (lambda d: d["frames"][2]["snapshot"].pop("blocks"), "frame 2 is malformed.*blocks"),
    (lambda d: d["frames"][4]["events"][0].update(kind="teleport"), "frame 4 is malformed.*teleport"),
    (lambda d: d["frames"][3]["snapshot"]["seqs"][0].update(status="sleeping"), "frame 3.*status 'sleeping'"),
    (lambda d: d["frames"][1]["snapshot"].update(block_size=0), "frame 1.*block_size"),
    (lambda d: d["frames"][2]["snapshot"]["map"].append([5, 999]), "frame 2.*outside the pool"),
    (lambda d: d["frames"][2]["snapshot"]["used"].pop(), "frame 2.*every block id once"),
    (lambda d: d["frames"][1]["snapshot"]["seqs"][0]["token_ids"].__setitem__(0, "x"), "frame 1.*Expected `int`"),
    (lambda d: d["frames"][1]["snapshot"]["blocks"][0].__setitem__(0, True), "frame 1.*Expected `int`, got `bool`"),
])
def test_format_1_bad_content_is_named(sim, tmp_path, change, message):
    data = v1_document(sim)
    change(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(TraceError, match=message):
        load_trace(path)


def lines_of(sim, tmp_path) -> list[dict]:
    path = tmp_path / "t.jsonl"
    sim.save(path)
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("change, message", [
    (lambda ls: ls[0]["config"].update(block_size=0), "header.*block_size"),
    (lambda ls: ls[0]["config"].update(num_blocks=True), "line 1.*Expected `int`, got `bool`"),
    (lambda ls: ls[0].update(free_order=[0, 0, 1]), "free_order"),
    (lambda ls: ls[2].update(tokens=[1.5]), "line 3.*Expected `int`, got `float`"),
    (lambda ls: ls[2].update(tokens=[-4]), r"line 3 \(step 2\): tokens: token id -4"),
    (lambda ls: ls[1]["arrivals"][0].__setitem__(2, ["a"]), r"line 2.*Expected `int`"),
    (lambda ls: ls[3].update(step=9), r"line 4 \(step 9\).*expected step 3"),
    (lambda ls: ls[2].update(surprise=1), r"line 3.*unknown field"),
    (lambda ls: ls[2].update(pieces={"abc": "x"}), r"line 3 \(step 2\): pieces: the key 'abc' is not a token id"),
    (lambda ls: ls[2].update(pieces={"9" * 5000: "x"}), r"line 3 \(step 2\): pieces: the key '9999.*…"),
    (lambda ls: ls[0]["config"].update(eos=-5), r"line 1 \(header\): config: .*eos"),
    (lambda ls: ls[0].update(format="x" * 100_000), r"line 1 \(header\): not a blockviz trace \(format is 'xxx"),
])
def test_format_2_bad_content_is_named(sim, tmp_path, change, message):
    lines = lines_of(sim, tmp_path)
    change(lines)
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    with pytest.raises(TraceError, match=message):
        load_trace(path)


@pytest.mark.parametrize("live, message", [
    ([{"kind": "kv_write", "slots": [10**6], "num_layers": 1}], r"line 3 \(step 2\): live: .*outside the pool"),
    ([{"kind": "allocate", "seq_id": 0, "block_id": 1}], r"line 3 \(step 2\): live: .*replayed, not recorded"),
    ([{"kind": "step_time", "seconds": "soon", "num_tokens": 1}], r"line 3 \(step 2\): live: .*Expected `float`"),
])
def test_bad_live_events_are_named_when_the_replay_reaches_them(sim, tmp_path, live, message):
    lines = lines_of(sim, tmp_path)
    lines[2]["live"] = live
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    loaded = load_trace(path)  # the lines are read lazily: their types at load, their values when replayed
    loaded.frames[1]
    with pytest.raises(TraceError, match=message):
        loaded.frames[2]


def test_inconsistent_steps_are_named_when_replayed(sim, tmp_path):
    lines = lines_of(sim, tmp_path)
    lines[3]["tokens"] = lines[3]["tokens"] + [7, 7]  # more sampled tokens than requests scheduled
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    loaded = load_trace(path)
    with pytest.raises(TraceError, match="step 3.*scheduled"):
        loaded.frames[loaded.last_step]


@pytest.mark.parametrize("content, message", [
    ("", "empty"),
    ('{"format": "blockviz-trace", "version": 1, "frames": [', "truncated"),
    ('{"format": "something-else", "version": 1}', "not a blockviz trace"),
    ("[1, 2, 3]", "not a blockviz trace"),
    ('{"format": "blockviz-trace", "version": 99, "frames": []}', "version 99"),
    ('{"format": "blockviz-trace", "version": 1, "frames": []}', "no frames"),
    ("[" * 50_000 + "]" * 50_000, "not a blockviz trace|nested too deeply"),
    ('{"format": "blockviz-trace", "version": 2, "config": ' + "[" * 50_000 + "]" * 50_000 + "}\n",
     "line 1.*malformed|nested too deeply"),
])
def test_bad_files(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(TraceError, match=message):
        load_trace(path)


def test_missing_and_binary_files(tmp_path):
    with pytest.raises(TraceError, match="no such file"):
        load_trace(tmp_path / "absent.json")
    binary = tmp_path / "trace.pkl"
    binary.write_bytes(b"\x80\x04\x95\xff\xfe")
    with pytest.raises(TraceError, match=f"{binary}.*not UTF-8"):
        load_trace(binary)


json_values = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
                           | st.text(max_size=5), lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=20)


@settings(max_examples=150, deadline=2000, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzzed_traces_give_only_trace_errors(tmp_path_factory, data):
    """Random JSON in each place of a real trace: it loads and replays, or it is a TraceError."""
    base = tmp_path_factory.mktemp("fuzz")
    sim = Simulator(num_blocks=6, block_size=2, record_to=base / "t.jsonl")
    sim.trace_writer().keyframe_every = 2  # keyframes to fuzz too
    sim.add([1, 2, 3, 1, 2], max_tokens=3)
    sim.add([1, 2, 3, 3], max_tokens=2)
    sim.run()
    sim.close()
    lines = [json.loads(line) for line in (base / "t.jsonl").read_text().splitlines()]
    where = data.draw(st.integers(0, len(lines) - 1))
    keys = sorted(lines[where])
    key = data.draw(st.sampled_from(keys))
    lines[where][key] = data.draw(json_values)
    path = base / "fuzz.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    try:
        loaded = load_trace(path)
        for step in range(loaded.last_step + 1):
            loaded.frames[step].snapshot.plain()
        loaded.frames.reset()
        loaded.frames.JUMP = 1
        for step in reversed(range(loaded.last_step + 1)):  # each from the keyframe before it
            loaded.frames.cache.clear()
            loaded.frames[step].snapshot.plain()
    except TraceError:
        pass


def test_kv_payload_round_trips_k_and_v_and_old_payloads_with_k_only_still_load():
    rng = np.random.default_rng(0)
    payload = {"kv": {"layer": 1, "head": 0, "slots": [4, 5, 9],
                      "k": rng.normal(size=(3, 8)).astype(np.float16), "v": rng.normal(size=(3, 8)).astype(np.float16)}}
    loaded = payload_from_dict(json.loads(json.dumps(payload_to_dict(payload))))["kv"]
    for name in ("k", "v"):
        np.testing.assert_allclose(loaded[name], payload["kv"][name], atol=1e-3)
    old = {"kv": {"layer": 1, "head": 0, "slots": [4, 5, 9], "k": payload["kv"]["k"].tolist()}}
    assert set(payload_from_dict(old)["kv"]) == {"layer", "head", "slots", "k"}


def special_files(tmp_path):
    import os
    import socket
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (tmp_path / "zero").symlink_to("/dev/zero")
    (tmp_path / "random").symlink_to("/dev/urandom")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "sock"))
    return sock, [(fifo, "a FIFO"), (tmp_path / "zero", "a device"), (tmp_path / "random", "a device"),
                  (tmp_path / "loop", "cannot be opened"), (tmp_path / "sock", "(a socket|cannot be opened)")]


def test_only_regular_files_are_read_and_refused_at_once(tmp_path):
    import time
    sock, files = special_files(tmp_path)
    try:
        for path, message in files:
            started = time.monotonic()
            with pytest.raises(TraceError, match=f"{path.name}: (is )?{message}"):
                load_trace(path)
            assert time.monotonic() - started < 2  # never reads a device to the end, never waits on a FIFO
    finally:
        sock.close()


def test_a_file_larger_than_the_cap_is_refused(sim, tmp_path, monkeypatch):
    from blockviz.recording import io
    path = tmp_path / "t.jsonl"
    sim.save(path)
    monkeypatch.setattr(io, "MAX_TRACE_BYTES", path.stat().st_size - 1)
    with pytest.raises(TraceError, match="larger than"):
        load_trace(path)
    monkeypatch.setattr(io, "MAX_TRACE_BYTES", path.stat().st_size)
    assert load_trace(path).last_step == sim.last_step
