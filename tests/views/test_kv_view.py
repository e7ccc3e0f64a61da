"""The KV view over a real (tiny, random) model: recorded K values land in the slots the step wrote."""
import numpy as np
import pytest

from blockviz.engine.llm_engine import LLMEngine
from blockviz.sampling_params import SamplingParams
from blockviz.trace.events import KVWritten
from blockviz.views.dashboard import Dashboard
from blockviz.views.render_view import has_kv, render_view
from blockviz.views.trace_index import KVIndex
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


def test_pool_at_a_step_holds_the_last_value_written_to_each_slot(engine, monkeypatch):
    monkeypatch.setattr(KVIndex, "CHECKPOINT", 2)  # exercise the checkpoints too
    snap = engine.snapshot(0)
    index = KVIndex(snap.num_blocks, snap.block_size)
    last = engine.last_step
    for step in [last, 1, 3, last - 1]:  # seek around, out of order
        pool = index.values(engine.frames, step).reshape(snap.num_blocks * snap.block_size, -1)
        expected = {}
        for s in range(1, step + 1):
            kv = engine.frames[s].payload["kv"]
            for slot, k in zip(kv["slots"], kv["k"]):
                expected[slot] = k
        for slot, k in expected.items():
            np.testing.assert_allclose(pool[slot], k.astype(np.float32))
    assert index.which == {"layer": 0, "head": 0}


def test_dashboard_of_an_llm_has_a_kv_tab(engine):
    dash = Dashboard(engine)
    assert dash.kv in dash.tabs.children and dash.kv.svg == ""
    dash.tabs.selected_index = dash.tabs.children.index(dash.kv)
    assert parse(dash.kv.svg).get("data-view") == "kv"
