"""The fleet view in a real browser: a notebook in JupyterLab shows FleetView over one watch of two
instances with a prompt routed; this test publishes each instance's KV events (vLLM's wire format,
from the in-process publisher), and chromium must mark the instance the router picks, move the
mark when the other instance comes to hold as long a prefix (the tie rule), and show each
instance's own forest. Screenshot: out/browser/fleet.png."""
import sys
import time
from pathlib import Path

import nbformat
import pytest

from tests.vllm.publisher import Publisher
from blockviz.vllm.wire import stored

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "browser"))
from labserver import chromium, free_port, jupyterlab, notebook_page  # noqa: E402,F401  (chromium: the fixture)

pytestmark = pytest.mark.timeout(420)

CELL = """\
import sys
sys.path[:0] = [{repo!r}]
from blockviz.vllm import Watch
from blockviz.views.fleet_widget import FleetView
instances = {instances!r}
w = Watch(list(instances.values()), None, {replays!r})
view = FleetView(w, instances)
view.route(list(range(70)))
view"""

CHOSEN = """() => {
  const s = document.querySelector('.bv-fleet-instance[data-chosen]');
  return s && [s.dataset.instance, s.dataset.cachedTokens,
               [...document.querySelectorAll('.bv-fleet-instance')].map(c => c.querySelectorAll('[data-hash]').length)];
}"""


def test_the_fleet_view_in_jupyterlab_marks_the_routers_pick(chromium, tmp_path):  # noqa: F811
    ports = [free_port() for _ in range(4)]
    instances = {"A": f"tcp://127.0.0.1:{ports[0]}", "B": f"tcp://127.0.0.1:{ports[1]}"}
    replays = [f"tcp://127.0.0.1:{ports[2]}", f"tcp://127.0.0.1:{ports[3]}"]
    cell = CELL.format(repo=str(REPO), instances=instances, replays=replays)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell)])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    (tmp_path / "root").mkdir()
    nbformat.write(notebook, tmp_path / "root" / "fleet.ipynb")
    with jupyterlab(tmp_path / "root", tmp_path) as url, notebook_page(chromium, url.format(notebook="fleet.ipynb")) as page:
        page.wait_for_selector(".bv-fleet-waiting", timeout=180_000)   # the watch is up before any event
        with Publisher(instances["A"], replays[0]) as a, Publisher(instances["B"], replays[1]) as b:
            time.sleep(1.0)   # ZMQ's slow joiner: let both connections come up before the first batch
            a.publish([stored([1], None, list(range(32)), 32)])
            b.publish([stored([7, 8], None, list(range(64)), 32)])
            page.wait_for_function(f"() => JSON.stringify(({CHOSEN})()) === '[\"B\",\"64\",[1,2]]'", timeout=60_000)
            a.publish([stored([2, 3], 1, list(range(32, 96)), 32)])   # A now holds as much of the prompt, and more
            page.wait_for_function(f"() => JSON.stringify(({CHOSEN})()) === '[\"A\",\"64\",[3,2]]'", timeout=60_000)
            assert "comes first" in page.locator(".bv-fleet-why").first.inner_text()
            (REPO / "out" / "browser").mkdir(parents=True, exist_ok=True)
            page.locator(".bv-fleet").screenshot(path=str(REPO / "out" / "browser" / "fleet.png"))
