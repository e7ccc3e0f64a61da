"""Lessons as a learner meets them: JupyterLab opens a lesson notebook (the first one in Chinese, the
live-model one in English) and runs every cell with no error; its views are drawn; a "compute first,
then check" question shows nothing of its answer until asked, rejects a wrong answer, shows the
engine's answer under Show solution and accepts it (in Chinese written with full-width commas, as a
Chinese keyboard types it); a practice exercise rejects a wrong answer and accepts the one the engine
computes here; the self-assessment's Save button shows all its words. Saves
out/browser/lesson-{lang}-{lesson}.png and lesson-{lang}-{lesson}-save.png.

Run alone: .venv/bin/python -m pytest tests/browser/test_lesson.py
"""
import shutil
from pathlib import Path

import pytest

from blockviz import exercises
from blockviz.i18n import t

from labserver import jupyterlab, notebook_page

pytestmark = [pytest.mark.browser, pytest.mark.timeout(420)]

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "out" / "browser"
# (language, lesson, a view it draws, the kind and seed of a "more practice" cell in it)
LESSONS = [("zh", "01_token_to_slot", "mapping", "slot", 1), ("en", "06_live_generation", "kv", "kv_bytes", 1)]

# Code cells not yet run, and the errors of those that ran (run-all stops at the first error).
RUN_STATE = """() => {
  const cells = window.jupyterapp.shell.currentWidget.content.widgets.filter(c => c.model.type === 'code');
  return {pending: cells.filter(c => !c.model.executionCount).length,
          errors: cells.flatMap(c => c.model.outputs.toJSON().filter(o => o.output_type === 'error')
                                      .map(o => `${o.ename}: ${o.evalue}`))};
}"""


@pytest.fixture(params=LESSONS, ids=lambda case: f"{case[0]}-{case[1]}")
def lesson(request, tmp_path):
    lang, name = request.param[:2]
    (tmp_path / "root").mkdir()
    shutil.copy(REPO / "notebooks" / lang / f"{name}.ipynb", tmp_path / "root")
    with jupyterlab(tmp_path / "root", tmp_path) as url:
        yield request.param, url.format(notebook=f"{name}.ipynb")


def answer(widget, text: str, button: str, correct: str):
    widget.locator("input").fill(text)
    widget.locator("button", has_text=button).click()
    feedback = widget.locator(f'.bv-feedback[data-correct="{correct}"]')
    feedback.wait_for(timeout=30_000)
    return feedback


def test_a_lesson_runs_and_checks_answers_in_jupyterlab(chromium, lesson):
    (lang, name, view, kind, seed), url = lesson
    practice_exercise = exercises.make(kind, seed=seed, lang=lang)
    screenshot = OUT / f"lesson-{lang}-{name}.png"
    OUT.mkdir(parents=True, exist_ok=True)
    with notebook_page(chromium, url) as page:
        page.wait_for_function(f"(() => {{ const s = ({RUN_STATE})(); return s.pending === 0 || s.errors.length }})()",
                               timeout=240_000, polling=500)
        assert page.evaluate(RUN_STATE) == {"pending": 0, "errors": []}
        page.locator(f'svg[data-view="{view}"]').first.wait_for(timeout=30_000)

        check = t("ex.ui.check", lang)
        question = page.locator(".bv-exercise", has_text=t("question.title", lang)).first
        assert not question.locator(".bv-feedback").count()  # Run All revealed nothing
        answer(question, "987654321", check, "false")
        question.locator("button", has_text=t("ex.ui.solution", lang)).click()
        solution = question.locator(".widget-html").last.locator("code").first
        solution.wait_for(timeout=30_000)
        engine_says = solution.text_content()
        answer(question, engine_says.replace(", ", "，") if lang == "zh" else engine_says, check, "true")

        practice = page.locator(".bv-exercise", has_text=practice_exercise.id).first
        answer(practice, "-5", check, "false")
        answer(practice, practice_exercise.answer_text(lang), check, "true")
        practice.scroll_into_view_if_needed()
        practice.screenshot(path=str(screenshot))

        # the self-assessment's Save button shows all its words (a Button's default 148 px cut them off)
        save = page.locator(".jupyter-button", has_text=t("lesson.save", lang)).first
        save.scroll_into_view_if_needed()
        save.locator("xpath=..").screenshot(path=str(OUT / f"lesson-{lang}-{name}-save.png"))
        assert save.evaluate("b => b.scrollWidth <= b.clientWidth"), save.evaluate("b => [b.scrollWidth, b.clientWidth]")
    assert screenshot.stat().st_size > 5_000
