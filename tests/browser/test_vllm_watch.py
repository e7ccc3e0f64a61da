"""A live vLLM watch in a real browser: a notebook in JupyterLab shows `show(watch)`, this test
publishes vLLM's KV events to it (vLLM's wire format and numbering, from the in-process publisher),
and chromium must show each new step's forest with exactly the blocks that were cached, the
player must step back through kept steps and follow the live end again. Saves a screenshot in
out/browser/vllm_watch.png.

Run alone: .venv/bin/python -m pytest tests/browser/test_vllm_watch.py
"""
import random
import sys
from pathlib import Path

import nbformat
import pytest

from blockviz.views.render_forest import short
from tests.vllm.publisher import Publisher

from labserver import free_port, jupyterlab, notebook_page

pytestmark = [pytest.mark.browser, pytest.mark.timeout(420)]

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "out" / "browser"
sys.path.insert(0, str(REPO))
from tests.vllm.synthetic import ToyCache  # noqa: E402

CELL = """\
import sys
sys.path[:0] = [{repo!r}]
from blockviz.vllm import watch
from blockviz.views import show
w = watch("tcp://127.0.0.1:{port}", api=None, replay="tcp://127.0.0.1:{replay}")
show(w)"""

FOREST = 'svg[data-view="vllm-forest"]'
SHOWN = f"""() => {{
  const svg = document.querySelector('{FOREST}');
  return svg && [+svg.dataset.step, [...svg.querySelectorAll('[data-state]')]
    .filter(g => g.dataset.state !== 'removed').map(g => g.dataset.hash).sort()];
}}"""


@pytest.fixture
def lab(tmp_path):
    port, replay = free_port(), free_port()
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(CELL.format(repo=str(REPO), port=port,
                                                                                       replay=replay))])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    (tmp_path / "root").mkdir()
    nbformat.write(notebook, tmp_path / "root" / "watch.ipynb")
    with jupyterlab(tmp_path / "root", tmp_path) as url:
        yield url.format(notebook="watch.ipynb"), port, replay


def wait_for_step(page, step: int):
    page.wait_for_function(f"(({SHOWN})() || [-1])[0] === {step}", timeout=60_000)


def test_a_live_watch_in_jupyterlab_shows_what_vllm_cached(chromium, lab):
    url, port, replay = lab
    OUT.mkdir(parents=True, exist_ok=True)
    cache, rng = ToyCache(capacity=10, block_size=4), random.Random(5)
    history = []
    with notebook_page(chromium, url) as page:
        page.wait_for_selector(".bv-vllm-waiting", timeout=180_000)   # the watch is up before any event
        with Publisher(f"tcp://127.0.0.1:{port}", f"tcp://127.0.0.1:{replay}") as publisher:
            publisher.wait_for_subscribers()   # ZMQ's slow joiner: a batch sent before this may vanish unseen
            for n in range(12):
                prompt = [rng.randrange(3) for _ in range(rng.randrange(4, 20))]
                publisher.publish(cache.run(prompt), drop=n in (0, 5))   # lost live: the replay brings them
                history.append(sorted(short(h) for h in cache.blocks))
            wait_for_step(page, 11)
            assert page.evaluate(SHOWN) == [11, history[11]]
            page.locator('.bv-player button[data-cmd="back"]').click()
            wait_for_step(page, 10)
            assert page.evaluate(SHOWN) == [10, history[10]]
            publisher.publish(cache.run([2, 2, 2, 2, 1, 1, 1, 1]))   # a new batch: the page stays at step 10
            history.append(sorted(short(h) for h in cache.blocks))
            page.wait_for_function("() => document.querySelector('.bv-player .bv-jump').max === '12'")
            assert page.evaluate(SHOWN)[0] == 10
            page.locator(".bv-player .bv-follow input").check()   # follow the live end again
            wait_for_step(page, 12)
            assert page.evaluate(SHOWN) == [12, history[12]]
            assert "stored so far" in page.locator(".bv-vllm-counters").inner_text()
            page.locator(".bv-vllm").screenshot(path=str(OUT / "vllm_watch.png"))
