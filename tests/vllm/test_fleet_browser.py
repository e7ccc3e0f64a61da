"""The fleet view in a real browser: a notebook in JupyterLab shows FleetView over one watch of two
instances with a prompt routed; this test publishes each instance's KV events (vLLM's wire format,
from the in-process publisher), and chromium must mark the instance the router picks, move the
mark when the other instance comes to hold as long a prefix (the tie rule), and show each
instance's own forest, each fitting its instance at 1280, 1400 and 900 px (no sideways scroll).
Screenshots: out/browser/fleet.png, fleet-900.png."""
import sys
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
            a.wait_for_subscribers(), b.wait_for_subscribers()   # ZMQ's slow joiner: no batch before both subscribed
            a.publish([stored([1], None, list(range(32)), 32)])
            b.publish([stored([7, 8], None, list(range(64)), 32)])
            page.wait_for_function(f"() => JSON.stringify(({CHOSEN})()) === '[\"B\",\"64\",[1,2]]'", timeout=60_000)
            a.publish([stored([2, 3], 1, list(range(32, 96)), 32)])   # A now holds as much of the prompt, and more
            page.wait_for_function(f"() => JSON.stringify(({CHOSEN})()) === '[\"A\",\"64\",[3,2]]'", timeout=60_000)
            assert "comes first" in page.locator(".bv-fleet-why").first.inner_text()
            (REPO / "out" / "browser").mkdir(parents=True, exist_ok=True)
            page.locator(".bv-fleet").screenshot(path=str(REPO / "out" / "browser" / "fleet.png"))
            # each forest fits its instance: nothing scrolls sideways, its header whole inside it
            for width in (1280, 1400, 900):
                page.set_viewport_size({"width": width, "height": 1000})
                page.wait_for_timeout(300)
                fits = page.evaluate("""() => [...document.querySelectorAll('.bv-fleet-forest')].map(f => {
                    const svg = f.querySelector('svg').getBoundingClientRect(), box = f.getBoundingClientRect();
                    return f.scrollWidth <= f.clientWidth + 1 && svg.right <= box.right + 1; })""")
                assert fits == [True, True], (width, fits)
            page.locator(".bv-fleet").screenshot(path=str(REPO / "out" / "browser" / "fleet-900.png"))
