"""Traces round-trip through JSON, and bad files get errors that say what is wrong."""
import json

import numpy as np
import pytest

from blockviz.scenarios import load_scenario
from blockviz.trace.io import TraceError, load_trace, payload_from_dict, payload_to_dict, trace_to_dict


@pytest.fixture
def sim():
    return load_scenario("preempt_rehit").run()


def test_round_trip_keeps_every_frame(sim, tmp_path):
    path = tmp_path / "trace.json"
    sim.save(path)
    loaded = load_trace(path)
    assert len(loaded.frames) == len(sim.frames)
    for original, copy in zip(sim.frames, loaded.frames):
        assert copy.step == original.step
        assert copy.events == original.events
        assert copy.snapshot == original.snapshot
    assert loaded.meta == sim.meta
    assert loaded.decode([104, 105]) == "hi"


def test_loaded_trace_seeks(sim, tmp_path):
    path = tmp_path / "trace.json"
    sim.save(path)
    loaded = load_trace(path)
    loaded.seek(3)
    assert loaded.snapshot() == sim.snapshot(3)
    assert not loaded.can_run


@pytest.mark.parametrize("content, message", [
    ("", "invalid JSON"),
    ('{"format": "blockviz-trace", "version": 1, "frames": [', "truncated"),
    ('{"format": "something-else", "version": 1}', "not a blockviz trace"),
    ("[1, 2, 3]", "not a blockviz trace"),
    ('{"format": "blockviz-trace", "version": 99, "frames": []}', "version 99"),
    ('{"format": "blockviz-trace", "version": 1, "frames": []}', "no frames"),
])
def test_bad_files(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(TraceError, match=message):
        load_trace(path)


def test_malformed_frame_is_named(sim, tmp_path):
    data = trace_to_dict(sim)
    del data["frames"][2]["snapshot"]["blocks"]
    data["frames"][4]["events"][0]["kind"] = "teleport"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TraceError, match="frame 2 is malformed.*blocks"):
        load_trace(path)
    del data["frames"][2]
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TraceError, match="frame 3 is malformed.*teleport"):
        load_trace(path)


def test_missing_and_binary_files(tmp_path):
    with pytest.raises(TraceError, match="no such file"):
        load_trace(tmp_path / "absent.json")
    binary = tmp_path / "trace.pkl"
    binary.write_bytes(b"\x80\x04\x95\xff\xfe")
    with pytest.raises(TraceError, match="not UTF-8"):
        load_trace(binary)


def test_kv_payload_round_trips_k_and_v_and_old_payloads_with_k_only_still_load():
    rng = np.random.default_rng(0)
    payload = {"kv": {"layer": 1, "head": 0, "slots": [4, 5, 9],
                      "k": rng.normal(size=(3, 8)).astype(np.float16), "v": rng.normal(size=(3, 8)).astype(np.float16)}}
    loaded = payload_from_dict(json.loads(json.dumps(payload_to_dict(payload))))["kv"]
    assert loaded["slots"] == [4, 5, 9] and (loaded["layer"], loaded["head"]) == (1, 0)
    for name in ("k", "v"):
        assert loaded[name].dtype == np.float16 and loaded[name].shape == (3, 8)
        np.testing.assert_allclose(loaded[name].astype(float), payload["kv"][name].astype(float), atol=1e-3)
    old = payload_from_dict({"kv": {"layer": 0, "head": 0, "slots": [1], "k": [[0.5, -0.25]]}})["kv"]
    assert "v" not in old and old["k"].shape == (1, 2)
