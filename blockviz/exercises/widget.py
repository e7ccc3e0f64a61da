"""The notebook front end: prompt, answer box, Check / Hint / Show solution, feedback. Thin:
every decision is Exercise.check / hint / solution."""
from __future__ import annotations

from typing import TYPE_CHECKING

import ipywidgets as w

from blockviz.i18n import t
from blockviz.markup import markdown_html

if TYPE_CHECKING:  # core.py builds this widget (Exercise.widget), so only type checkers import it back
    from blockviz.exercises.core import Exercise, Result


class ExerciseWidget(w.VBox):

    def __init__(self, exercise: Exercise, lang: str | None = None):
        lang = lang or exercise.lang
        self.prompt = w.HTML(markdown_html(exercise.prompt_in(lang)))
        lines = exercise.answer_lines
        if lines > 1:  # a table: one row a line
            self.answer = w.Textarea(placeholder=t(f"{exercise.kind.name}.placeholder", lang), rows=lines + 1,
                                     layout=w.Layout(width="50%"))
        else:
            self.answer = w.Text(placeholder=t("ex.ui.placeholder", lang), layout=w.Layout(width="50%"))
        self.check_button = w.Button(description=t("ex.ui.check", lang), button_style="primary")
        self.hint_button = w.Button(description=t("ex.ui.hint", lang))
        self.solution_button = w.Button(description=t("ex.ui.solution", lang))
        self.feedback = w.HTML()
        super().__init__([self.prompt, w.HBox([self.answer, self.check_button, self.hint_button,
                                               self.solution_button]), self.feedback])
        self.add_class("bv-exercise")
        for part in (self.prompt, self.feedback):  # JupyterLab's own Markdown styles: tables, code
            part.add_class("jp-RenderedHTMLCommon")
        self.exercise, self.lang = exercise, lang
        self.check_button.on_click(lambda _: self.check())
        self.hint_button.on_click(lambda _: self.show(exercise.hint(lang)))
        self.solution_button.on_click(lambda _: self.show(exercise.solution(lang)))

    def check(self) -> Result:
        result = self.exercise.check(self.answer.value, self.lang)
        colour = "#1a7f37" if result.correct else "#b35900"
        correct = "true" if result.correct else "false"
        self.feedback.value = f'<div class="bv-feedback" data-correct="{correct}" style="color:{colour}">' \
                              f'{markdown_html(result.message)}</div>'
        return result

    def show(self, markdown: str):
        self.feedback.value = markdown_html(markdown)
