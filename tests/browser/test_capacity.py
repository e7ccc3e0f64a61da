"""The capacity view in a real browser: a notebook in JupyterLab shows show(curve, "capacity"); moving
its sliders in chromium must redraw the picture at the sizes they name, each number the curve's.
Saves a screenshot in out/browser/capacity.png.

Run alone: .venv/bin/python -m pytest tests/browser/test_capacity.py
"""
import math
import sys
from pathlib import Path

import nbformat
import pytest

from labserver import jupyterlab, notebook_page

pytestmark = [pytest.mark.browser, pytest.mark.timeout(420)]

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "out" / "browser"
sys.path.insert(0, str(REPO))

CELL = """\
import sys
sys.path[:0] = [{repo!r}]
from blockviz import traffic
from blockviz.views import show
show(traffic.curve(traffic.load("synthetic").head(400)), "capacity", model="qwen3-0.6b", total_tokens=10**6)"""

SHOWN = """() => {
  const view = document.querySelector('.bv-capacity');
  return view && [+view.dataset.gpuTokens, +view.dataset.cpuTokens, +view.dataset.gpuRate];
}"""


def move(page, trait: str, value: float):
    page.evaluate(f"""() => {{
      const input = document.querySelector('.bv-capacity-view input[data-trait="{trait}"]');
      input.value = "{value}";
      input.dispatchEvent(new Event("input", {{ bubbles: true }}));
    }}""")


@pytest.fixture
def lab(tmp_path):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(CELL.format(repo=str(REPO)))])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    (tmp_path / "root").mkdir()
    nbformat.write(notebook, tmp_path / "root" / "capacity.ipynb")
    with jupyterlab(tmp_path / "root", tmp_path) as url:
        yield url.format(notebook="capacity.ipynb")


def test_the_sliders_redraw_the_capacity_view_in_jupyterlab(chromium, lab):
    from blockviz import traffic
    curve = traffic.curve(traffic.load("synthetic").head(400))
    OUT.mkdir(parents=True, exist_ok=True)
    with notebook_page(chromium, lab) as page:
        page.wait_for_selector(".bv-capacity-view .bv-capacity", timeout=180_000)
        assert page.evaluate(SHOWN)[:2] == [10**6, 0]
        move(page, "total_log", 7)
        page.wait_for_function(f"(({SHOWN})() || [0])[0] === {10**7}", timeout=60_000)
        gpu, cpu, rate = page.evaluate(SHOWN)
        assert cpu == 0 and rate == pytest.approx(curve.hit_rate(10**7), abs=1e-6)
        move(page, "gpu_share", 0.25)
        page.wait_for_function(f"(({SHOWN})() || [0])[0] === {round(10**7 * 0.25)}", timeout=60_000)
        gpu, cpu, rate = page.evaluate(SHOWN)
        assert cpu == 10**7 - gpu and rate == pytest.approx(curve.hit_rate(gpu), abs=1e-6)
        assert math.isclose(float(page.locator('input[data-trait="gpu_share"]').input_value()), 0.25)
        page.locator(".bv-capacity-view").screenshot(path=str(OUT / "capacity.png"))
