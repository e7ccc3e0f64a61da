"""The KV view over a real (tiny, random) model: recorded K and V values land in the slots the step wrote."""
import json

import numpy as np
import pytest

from blockviz.llm import LLMEngine
from blockviz.sampling_params import SamplingParams
from blockviz.recording.events import KVWritten
from blockviz.recording.io import load_trace
from blockviz.views import show
from blockviz.views.dashboard import Dashboard
from blockviz.views.render_view import has_kv, render_view
from blockviz.views.recording_index import KVIndex
from tests.engine.tiny_model import write_tiny_model

from svgtools import parse, with_attr


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine = LLMEngine(write_tiny_model(tmp_path_factory.mktemp("tiny")), device="cpu", num_kvcache_blocks=12,
                       kvcache_block_size=4)
    shared = list(range(3, 12))
    engine.add_request(shared + [20, 21], SamplingParams(temperature=0, max_tokens=4, ignore_eos=True))
    engine.add_request(shared + [30], SamplingParams(temperature=0, max_tokens=4, ignore_eos=True))
    engine.run()
    return engine


def written(engine, step):
    return [s for e in engine.events(step) if isinstance(e, KVWritten) for s in e.slots]


def test_written_cells_are_the_slots_of_the_steps_kv_write(engine):
    assert has_kv(engine)
    for step in range(1, len(engine.frames)):
        root = parse(render_view(engine, "kv", step))
        outlined = sorted(int(c.get("data-slot")) for c in with_attr(root, "data-slot") if c.get("data-written") == "1")
        assert outlined == sorted(written(engine, step))


def test_each_step_records_k_and_v_of_its_writes_only_in_float16(engine):
    cache = engine.model_runner.kv_cache
    last = engine.frames[engine.last_step].payload["kv"]  # the cache holds the last write of each slot
    for i, name in enumerate(("k", "v")):
        assert last[name].dtype == np.float16 and last[name].shape == (len(last["slots"]), 16)
        stored = cache[i, 0].flatten(0, 1)[last["slots"], 0].float().numpy()
        np.testing.assert_allclose(last[name].astype(np.float32), stored, atol=1e-2)
    for step in range(1, len(engine.frames)):
        assert len(engine.frames[step].payload["kv"]["slots"]) == len(written(engine, step))


@pytest.mark.parametrize("kv", ["k", "v"])
def test_pool_at_a_step_holds_the_last_value_written_to_each_slot(engine, monkeypatch, kv):
    monkeypatch.setattr(KVIndex, "CHECKPOINT", 2)  # exercise the checkpoints too
    snap = engine.snapshot(0)
    index = KVIndex(snap.num_blocks, snap.block_size)
    last = engine.last_step
    for step in [last, 1, 3, last - 1]:  # seek around, out of order
        pool = index.values(engine.frames, step, kv).reshape(snap.num_blocks * snap.block_size, -1)
        expected = {}
        for s in range(1, step + 1):
            payload = engine.frames[s].payload["kv"]
            for slot, value in zip(payload["slots"], payload[kv]):
                expected[slot] = value
        for slot, value in expected.items():
            np.testing.assert_allclose(pool[slot], value.astype(np.float32))
    assert index.which == {"layer": 0, "head": 0}


def test_the_view_shows_k_or_v(engine):
    k, v = (render_view(engine, "kv", 2, kv=kv) for kv in ("k", "v"))
    assert "· K ·" in parse(k).get("aria-label") and "· V ·" in parse(v).get("aria-label")
    assert k != v
    assert render_view(engine, "kv", 2) == k  # K unless asked
    with pytest.raises(ValueError, match='"k" or "v"'):
        render_view(engine, "kv", 2, kv="q")


def test_the_widget_switches_between_k_and_v(engine):
    widget = show(engine, "kv")
    assert widget.kv == "k" and "· K ·" in parse(widget.svg).get("aria-label")
    widget.kv = "v"  # what the page's switch sets
    assert "· V ·" in parse(widget.svg).get("aria-label")
    assert widget.svg == render_view(engine, "kv", engine.cursor, kv="v")
    zh = show(engine, "kv", lang="zh", kv="v")
    assert zh.kv == "v" and zh.strings["v"] == "V（值）"


def test_a_trace_saved_before_v_was_recorded_still_loads_and_shows_k(engine, tmp_path):
    path = tmp_path / "trace.json"
    engine.save(path)
    assert load_trace(path).frames[1].payload["kv"]["v"].shape == engine.frames[1].payload["kv"]["v"].shape
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for line in lines[1:]:
        if line.get("payload"):
            del line["payload"]["kv"]["v"]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    old = load_trace(path)
    assert has_kv(old) and "v" not in old.frames[1].payload["kv"]
    assert render_view(old, "kv", 2) == render_view(engine, "kv", 2)
    assert "no V values" in render_view(old, "kv", 2, kv="v")


def test_dashboard_of_an_llm_has_a_kv_tab(engine):
    dash = Dashboard(engine)
    assert dash.kv in dash.tabs.children and dash.kv.svg == ""
    dash.tabs.selected_index = dash.tabs.children.index(dash.kv)
    assert parse(dash.kv.svg).get("data-view") == "kv"
