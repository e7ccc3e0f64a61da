"""The whole path in a real browser: the session's real vLLM, a watch in a JupyterLab kernel,
chromium. After a request, the page's forest must hold exactly the blocks this test's own watch
sees at the same step (both number steps by vLLM's sequence numbers, from the replay), and the
counters the server's hit rate. Screenshot: out/browser/vllm_real.png."""
import sys
from pathlib import Path

import nbformat
import pytest

from blockviz.views.render_forest import short

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "browser"))
from labserver import chromium, jupyterlab, notebook_page  # noqa: E402,F401  (chromium: the fixture)

pytestmark = pytest.mark.timeout(900)   # it may be the test that waits for the session's server to start

CELL = """\
import sys
sys.path[:0] = [{repo!r}]
from blockviz.vllm import watch
from blockviz.views import show
w = watch({events!r}, api={api!r}, replay={replay!r})
show(w)"""

SHOWN = """() => {
  const svg = document.querySelector('svg[data-view="vllm-forest"]');
  return svg && [+svg.dataset.step, [...svg.querySelectorAll('[data-state]')]
    .filter(g => g.dataset.state !== 'removed').map(g => g.dataset.hash).sort()];
}"""


def test_a_real_vllm_watched_in_jupyterlab(chromium, vllm_server, live_watch, tmp_path):  # noqa: F811
    cell = CELL.format(repo=str(REPO), events=vllm_server.events, api=vllm_server.api, replay=vllm_server.replay)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell)])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    (tmp_path / "root").mkdir()
    nbformat.write(notebook, tmp_path / "root" / "real.ipynb")
    with jupyterlab(tmp_path / "root", tmp_path) as url, notebook_page(chromium, url.format(notebook="real.ipynb")) as page:
        page.wait_for_selector(".bv-vllm", timeout=180_000)   # the watch is up (and caught up, if vLLM has history)
        prompt = live_watch.tokenizer.encode("It is a truth universally acknowledged, that a single man in "
                                             "possession of a good fortune, must be in want of a wife. " * 3)
        vllm_server.client.complete(prompt[:100], max_tokens=1)
        live_watch.settle()
        step = live_watch.last_step
        page.wait_for_function(f"(({SHOWN})() || [-1])[0] === {step}", timeout=60_000)
        assert page.evaluate(SHOWN) == [step, sorted(short(r.hash) for r in live_watch.picture(step).blocks)]
        page.wait_for_function("() => /hit rate \\(server \\/metrics\\): \\d+%/.test("
                               "document.querySelector('.bv-vllm-counters')?.textContent || '')", timeout=30_000)
        (REPO / "out" / "browser").mkdir(parents=True, exist_ok=True)
        page.locator(".bv-vllm").screenshot(path=str(REPO / "out" / "browser" / "vllm_real.png"))
