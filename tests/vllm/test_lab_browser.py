"""The lab view in a real browser: a notebook in JupyterLab shows LabView over a lab result
(nano-vllm replayed now, vLLM's side built by hand as in test_lab_rules.py); chromium must draw a
row per request, mark the rows that differ with their rule, draw both hit-rate lines, and list the
rules. Screenshot: out/browser/lab.png."""
import sys
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "browser"))
from labserver import chromium, jupyterlab, notebook_page  # noqa: E402,F401  (chromium: the fixture)

pytestmark = pytest.mark.timeout(420)

CELL = """\
import sys
sys.path[:0] = [{repo!r}]
from tests.vllm.test_lab_rules import A, Bq, C, VLLM_HANDMADE, lab_of
from blockviz.views.lab_widget import LabView
LabView(lab_of([A, Bq, C, A], VLLM_HANDMADE), lang="zh")"""

DRAWN = """() => {
  const lab = document.querySelector('.bv-lab');
  if (!lab) return null;
  const rows = [...lab.querySelectorAll('tbody tr')];
  const why = lab.querySelector('tr[data-index="3"] .bv-lab-why');
  return [rows.length, rows.map(r => r.dataset.differs).join(','),
          lab.querySelectorAll('polyline').length, lab.querySelectorAll('li[data-rule]').length,
          why && why.getBoundingClientRect().width > 100 && why.dataset.rules];
}"""


def test_the_lab_view_in_jupyterlab_shows_both_engines_and_the_rules(chromium, tmp_path):  # noqa: F811
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(CELL.format(repo=str(REPO)))])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    (tmp_path / "root").mkdir()
    nbformat.write(notebook, tmp_path / "root" / "lab.ipynb")
    with jupyterlab(tmp_path / "root", tmp_path) as url, notebook_page(chromium, url.format(notebook="lab.ipynb")) as page:
        page.wait_for_selector(".bv-lab", timeout=180_000)
        page.wait_for_selector('.bv-lab tr[data-index="3"]', timeout=60_000)   # static HTML: drawn at once
        assert page.evaluate(DRAWN) == [4, "false,false,true,true", 2, 5, "free_unhashed_first"]
        assert "空闲队列的顺序" in page.locator('.bv-lab tr[data-index="3"]').inner_text()
        (REPO / "out" / "browser").mkdir(parents=True, exist_ok=True)
        page.locator(".bv-lab").screenshot(path=str(REPO / "out" / "browser" / "lab.png"))
