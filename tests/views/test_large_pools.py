"""A pool sized from GPU memory (65 536 blocks) with a few requests: every view's size follows what
is in use, not the pool's size."""
import numpy as np
import pytest

from blockviz.llm import LLMEngine
from blockviz.sampling_params import SamplingParams
from blockviz.text import render_text
from blockviz.recording.events import KVWritten
from blockviz.views.export import export_html
from blockviz.views.render_kv import render_kv
from blockviz.views.render_view import render_view
from tests.engine.tiny_model import write_tiny_model

VIEWS = ("pool", "mapping", "chain", "events")


def sizes(timeline, views) -> list[dict[str, int]]:
    return [{view: len(render_view(timeline, view, step)) for view in views} for step in range(timeline.last_step + 1)]


def test_every_view_of_a_gpu_sized_pool_is_as_small_as_with_4096_blocks(huge, huge_as_4096):
    assert huge_as_4096.last_step == huge.last_step
    for step, (big, usual) in enumerate(zip(sizes(huge, VIEWS), sizes(huge_as_4096, VIEWS))):
        assert big["pool"] < 300_000, step
        for view in VIEWS:
            assert big[view] <= 2 * usual[view], (step, view)


def test_the_text_view_writes_runs_of_the_free_queue_as_ranges(huge):
    text = render_text(huge.snapshot(1), huge.decode)
    assert len(text) < 20_000  # a line per block in use (168 here), one for the 65 368 free ones
    queue = huge.snapshot(1).free_block_ids
    assert f"free queue (next allocation first): {queue[0]}..65535" in text
    assert list(queue) == list(range(queue[0], 65536))


def test_an_html_player_of_a_gpu_sized_pool_stays_small(huge, tmp_path):
    page = export_html(huge, tmp_path / "player.html", views=("pool",), steps=range(0, huge.last_step + 1, 3))
    assert page.stat().st_size < 1_000_000


@pytest.fixture(scope="module")
def engines(tmp_path_factory) -> dict[int, LLMEngine]:
    model = write_tiny_model(tmp_path_factory.mktemp("tiny"))
    engines = {}
    for num_blocks in (4096, 65536):
        engine = LLMEngine(model, device="cpu", num_kvcache_blocks=num_blocks, kvcache_block_size=4)
        shared = list(range(3, 12))
        for k in range(6):
            engine.add_request(shared + [20 + k, 21], SamplingParams(temperature=0, max_tokens=8, ignore_eos=True))
        engine.run()
        engines[num_blocks] = engine
    return engines


def test_every_view_of_a_model_with_a_gpu_sized_pool_is_bounded(engines):
    views = VIEWS + ("kv",)
    for step, (big, usual) in enumerate(zip(sizes(engines[65536], views), sizes(engines[4096], views))):
        assert big["pool"] < 300_000 and big["kv"] < 300_000, step
        for view in views:
            assert big[view] <= 2 * usual[view], (step, view)


def test_the_kv_view_draws_what_the_whole_pool_holds(engines):
    """Only written blocks are kept, yet the grid is the one drawn from the whole pool's values."""
    engine = engines[65536]
    snapshot = engine.snapshot(0)
    pool = np.zeros((snapshot.num_blocks * snapshot.block_size, 16), np.float32)
    for step in range(1, engine.last_step + 1):
        payload = engine.frames[step].payload["kv"]
        pool[list(payload["slots"])] = payload["k"]
        written = [s for e in engine.events(step) if isinstance(e, KVWritten) for s in e.slots]
        rows = sorted({*engine.snapshot(step).used_block_ids, *(s // snapshot.block_size for s in written)})
        whole = render_kv(pool.reshape(snapshot.num_blocks, snapshot.block_size, -1), written, blocks=rows, step=step,
                          title="layer 0 · KV head 0 · K")
        assert render_view(engine, "kv", step) == whole
