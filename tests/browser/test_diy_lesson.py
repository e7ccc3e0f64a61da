"""The build-it-yourself track as a learner meets it: JupyterLab opens b1_allocate, runs every cell
with no error (the check reports the stubs as not written yet), then the learner writes the methods
into the learner cell and runs the check: the engine's own code passes; one line of it changed
(the free queue's tail popped) fails at its first differing step, with both pools drawn side by side.
Saves out/browser/build-b1_allocate.png.

Run alone: .venv/bin/python -m pytest tests/browser/test_diy_lesson.py
"""
import json
import shutil
import textwrap
from pathlib import Path

import pytest

from blockviz.diy.mutants import source

from labserver import jupyterlab, notebook_page
from test_lesson import RUN_STATE

pytestmark = [pytest.mark.browser, pytest.mark.timeout(420)]

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "out" / "browser"
NAME = "b1_allocate"
METHODS = ("can_allocate", "_allocate_block", "allocate")

# Put `text` into the first code cell starting with `start`, run it, and return its index.
RUN_CELL = """async ([start, text]) => {
  const panel = window.jupyterapp.shell.currentWidget;
  const cells = panel.content.widgets;
  const i = cells.findIndex(c => c.model.type === 'code' && c.model.sharedModel.getSource().startsWith(start));
  if (text !== null) cells[i].model.sharedModel.setSource(text);
  panel.content.activeCellIndex = i;
  await window.jupyterapp.commands.execute('notebook:run-cell');
  return i;
}"""


def learner_cell(old: str = "", new: str = "") -> str:
    """The class a learner writes: the engine's methods, with `old` replaced by `new`."""
    body = "\n".join(textwrap.indent(source(m), "    ") for m in METHODS).replace(old, new)
    return f"class MyBlockManager(BlockManager):\n\n{body}"


def check_result(page, state: str):
    """Run the check cell again and wait for its report saying `state`."""
    index = page.evaluate(RUN_CELL, ["report = check(", None])
    report = page.locator(".jp-Notebook .jp-Cell").nth(index).locator(f'.bv-build[data-passed="{state}"]')
    report.wait_for(timeout=60_000)
    return report


@pytest.fixture
def lab(tmp_path):
    (tmp_path / "root").mkdir()
    shutil.copy(REPO / "notebooks" / "en" / f"{NAME}.ipynb", tmp_path / "root")
    with jupyterlab(tmp_path / "root", tmp_path) as url:
        yield url.format(notebook=f"{NAME}.ipynb")


def test_a_learner_writes_the_methods_and_the_check_finds_the_first_difference(chromium, lab):
    screenshot = OUT / f"build-{NAME}.png"
    OUT.mkdir(parents=True, exist_ok=True)
    with notebook_page(chromium, lab) as page:
        page.wait_for_function(f"(() => {{ const s = ({RUN_STATE})(); return s.pending === 0 || s.errors.length }})()",
                               timeout=240_000, polling=500)
        assert page.evaluate(RUN_STATE) == {"pending": 0, "errors": []}
        assert page.locator('.bv-build[data-passed="none"]').count() == 1  # the stubs: not written yet

        page.evaluate(RUN_CELL, ["class MyBlockManager", learner_cell()])
        passed = check_result(page, "true")
        assert "✓" in passed.text_content()

        page.evaluate(RUN_CELL, ["class MyBlockManager",
                                 learner_cell("self.free_block_ids.popleft()", "self.free_block_ids.pop()")])
        failed = check_result(page, "false")
        step = failed.get_attribute("data-step")
        assert step is not None and int(step) >= 1
        assert f"step {step}" in failed.text_content() and "block_table" in failed.text_content()
        pools = failed.locator('svg[data-view="pool"]')
        assert pools.count() == 2  # yours and the engine's, side by side
        failed.scroll_into_view_if_needed()
        failed.screenshot(path=str(screenshot))
        cell = page.evaluate("() => window.jupyterapp.shell.currentWidget.content.activeCell.model.sharedModel"
                             ".getSource()")
        assert json.dumps(cell).startswith('"report = check(')
    assert screenshot.stat().st_size > 5_000
