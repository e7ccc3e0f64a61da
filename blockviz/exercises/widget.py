"""The notebook front end: prompt, answer box, Check / Hint / Show solution, feedback. Thin:
every decision is Exercise.check / hint / solution."""
from typing import Any, Protocol

import ipywidgets as w

from blockviz.i18n import t
from blockviz.markup import markdown_html


class Checked(Protocol):
    """What the widget reads of a check: an exercises.core.Result."""
    correct: bool
    message: str


class Checkable(Protocol):
    """What the widget asks of an exercise: an exercises.core.Exercise (which builds this widget in
    Exercise.widget, so the widget names only what it uses and imports nothing back)."""
    lang: str
    kind: Any
    answer_lines: int

    def prompt_in(self, lang: str) -> str: ...

    def check(self, answer: str, lang: str) -> Checked: ...

    def hint(self, lang: str) -> str: ...

    def solution(self, lang: str) -> str: ...


class ExerciseWidget(w.VBox):

    def __init__(self, exercise: Checkable, lang: str | None = None):
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

    def check(self) -> Checked:
        result = self.exercise.check(self.answer.value, self.lang)
        colour = "#1a7f37" if result.correct else "#b35900"
        correct = "true" if result.correct else "false"
        self.feedback.value = f'<div class="bv-feedback" data-correct="{correct}" style="color:{colour}">' \
                              f'{markdown_html(result.message)}</div>'
        return result

    def show(self, markdown: str):
        self.feedback.value = markdown_html(markdown)
