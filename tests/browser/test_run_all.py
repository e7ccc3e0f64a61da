"""The views keep their promise under Run All: JupyterLab runs every cell of a lesson whose later
cells run the same engine on past the views opened earlier (the live model's lesson in English,
preemption's in Chinese), and each view `L.show` opened at a step, which the text beside it
describes, still shows that step once every cell has run: its player and every picture it drives.
Lesson.show names the step it opened at in the page (the class bv-opened-at-N); each `L.show`
line of the notebook's code must have drawn one. Saves out/browser/run-all-{lang}-{lesson}.png.

Run alone: .venv/bin/python -m pytest tests/browser/test_run_all.py
"""
import json
import re
import shutil
from pathlib import Path

import pytest

from labserver import jupyterlab, notebook_page
from test_lesson import RUN_STATE

pytestmark = [pytest.mark.browser, pytest.mark.timeout(480)]

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "out" / "browser"
LESSONS = [("en", "06_live_generation"), ("zh", "05b_preemption")]

# Each view Lesson.show drew: the step it opened at, the step its player shows and the step of each
# picture on screen (a dashboard's hidden tabs are not drawn until chosen).
SHOWN = """() => [...document.querySelectorAll('[class*="bv-opened-at-"]')].map(box => ({
  opened: +box.className.match(/bv-opened-at-(\\d+)/)[1],
  player: box.querySelector('.bv-player')?.getAttribute('data-step') ?? null,
  views: [...box.querySelectorAll('svg[data-view]')].filter(svg => svg.checkVisibility())
           .map(svg => [svg.getAttribute('data-view'), svg.getAttribute('data-step')]),
}))"""
KERNEL_IDLE = "window.jupyterapp.shell.currentWidget.sessionContext.session?.kernel?.status === 'idle'"


def shows_in(notebook: Path) -> int:
    """How many `L.show(...)` lines the notebook's code cells run (one view each)."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return sum(len(re.findall(r"^L\.show\(", "".join(c["source"]), re.M)) for c in cells if c["cell_type"] == "code")


@pytest.fixture(params=LESSONS, ids=lambda case: f"{case[0]}-{case[1]}")
def lesson(request, tmp_path):
    lang, name = request.param
    (tmp_path / "root").mkdir()
    shutil.copy(REPO / "notebooks" / lang / f"{name}.ipynb", tmp_path / "root")
    with jupyterlab(tmp_path / "root", tmp_path) as url:
        yield request.param, url.format(notebook=f"{name}.ipynb")


def test_every_view_shows_its_step_after_run_all(chromium, lesson):
    (lang, name), url = lesson
    expected = shows_in(REPO / "notebooks" / lang / f"{name}.ipynb")
    assert expected >= 2, f"{name} opens too few views for this test"
    screenshot = OUT / f"run-all-{lang}-{name}.png"
    OUT.mkdir(parents=True, exist_ok=True)
    with notebook_page(chromium, url) as page:
        page.wait_for_function(f"(() => {{ const s = ({RUN_STATE})(); return s.pending === 0 || s.errors.length }})()",
                               timeout=300_000, polling=500)
        assert page.evaluate(RUN_STATE) == {"pending": 0, "errors": []}
        page.wait_for_function(KERNEL_IDLE, timeout=60_000, polling=500)
        # every view drawn: its player and a picture per pane, each with a step
        page.wait_for_function(f"""(() => {{ const shown = ({SHOWN})();
            return shown.length === {expected} && shown.every(v => v.player !== null && v.views.length
                                                                    && v.views.every(([, step]) => step !== null)) }})()""",
                               timeout=60_000, polling=500)
        shown = page.evaluate(SHOWN)
        moved = [v for v in shown if v["player"] != str(v["opened"])
                 or any(step != str(v["opened"]) for _, step in v["views"])]
        assert not moved, f"views no longer at the step they opened at: {moved}"
        last = page.locator('[class*="bv-opened-at-"]').last
        last.scroll_into_view_if_needed()
        last.screenshot(path=str(screenshot))
    assert screenshot.stat().st_size > 5_000
