"""Exercise, Result and the Kind interface that every exercise kind implements.

A kind is a handful of pure functions over JSON-able `params`:
generate(rng) -> params, validate(params) -> params, solve(params) -> Solved (runs the real
engine), prompt/hint/solution(params, solved, lang) -> str, parse(answer, params, solved) -> value,
diagnose(params, solved, value) -> Feedback | None. The answer lives only in Solved, which is
computed by the engine when it is first needed, never typed into a kind.
"""
import json
from dataclasses import dataclass, field
from functools import cached_property
from random import Random
from typing import TYPE_CHECKING, Any

from blockviz.exercises.answers import AnswerError
from blockviz.i18n import t
from blockviz.markup import markdown_html

if TYPE_CHECKING:
    from blockviz.exercises.widget import ExerciseWidget


@dataclass(frozen=True)
class Feedback:
    """A message key for one recognised wrong answer (a misconception or a partial mistake)."""
    key: str
    fmt: dict = field(default_factory=dict)
    misconception: str | None = None
    also: tuple[str, ...] = ()  # keys of other known mistakes that give the same wrong answer
    lead: str | None = None     # a key said first: where the mistake is (a table's first wrong cell)


def partial(key: str, wrong: list, total: int, **fmt) -> "Feedback":
    """'k of n right, look again at ...'; without the list when nothing is right (a list of every
    position could read like an answer)."""
    if len(wrong) == total:
        return Feedback("ex.check.none_right")
    return Feedback(key, {"count": total - len(wrong), "total": total, "blocks": ", ".join(map(str, wrong)),
                          "positions": ", ".join(map(str, wrong)), **fmt})


@dataclass(frozen=True)
class Result:
    correct: bool
    message: str
    misconception: str | None = None  # the misconception recognised, if any
    malformed: bool = False           # the answer could not be read

    def __str__(self) -> str:
        return self.message

    def _repr_html_(self) -> str:
        # HTML, not Markdown: the message may echo what the learner typed, and a notebook's own
        # Markdown renderer passes raw HTML through; markdown_html escapes it
        return markdown_html(self.message)


@dataclass
class Solved:
    """What the engine computed: the answer, plus the facts the prompt and the solution show."""
    answer: Any
    facts: dict


class Kind:
    name = ""
    lesson = 0
    param_names: tuple[str, ...] = ()  # the params it takes (checked by exercises/params.py first)

    def generate(self, rng: Random) -> dict:
        raise NotImplementedError

    def validate(self, params: dict) -> dict:
        """Complete and check explicit params; raise ValueError with a clear message."""
        return params

    def solve(self, params: dict) -> Solved:
        raise NotImplementedError

    def prompt(self, params: dict, solved: Solved, lang: str) -> str:
        raise NotImplementedError

    def parse(self, answer, params: dict, solved: Solved) -> Any:
        raise NotImplementedError

    def same(self, value, solved: Solved) -> bool:
        return value == solved.answer

    def diagnose(self, params: dict, solved: Solved, value) -> Feedback | None:
        return None

    def hint(self, params: dict, solved: Solved, lang: str) -> str:
        return t(f"{self.name}.hint", lang)

    def answer_lines(self, params: dict, solved: Solved) -> int:
        """Lines the answer takes (a table: one a row); the widget's answer box grows to fit."""
        return 1

    def solution(self, params: dict, solved: Solved, lang: str) -> str:
        raise NotImplementedError

    def answer_text(self, solved: Solved, lang: str) -> str:
        answer = solved.answer
        if isinstance(answer, (list, tuple)):
            return ", ".join(map(str, answer))
        return str(answer)


@dataclass
class Exercise:
    kind: Kind
    params: dict
    seed: int | None = None
    lang: str = "en"

    @property
    def id(self) -> str:
        """Short and shareable for a seeded instance ("slot_mapping-1234"); kind:JSON otherwise."""
        if self.seed is not None:
            return f"{self.kind.name}-{self.seed}"
        return f"{self.kind.name}:{json.dumps(self.params, separators=(',', ':'), ensure_ascii=False)}"

    @cached_property
    def solved(self) -> Solved:
        return self.kind.solve(self.params)

    @property
    def prompt(self) -> str:
        return self.prompt_in(self.lang)

    def prompt_in(self, lang: str) -> str:
        title = t(f"{self.kind.name}.title", lang)
        body = self.kind.prompt(self.params, self.solved, lang)
        return f"**{title}** · `{self.id if self.seed is not None else self.kind.name}`\n\n{body}"

    def check(self, answer, lang: str | None = None) -> Result:
        """Never raises: a malformed answer, or a failure inside, comes back as a message. A string missing
        from the table is the exception: KeyError, a bug for the tests to find, never a key shown as text."""
        lang = lang or self.lang
        try:
            value = self.kind.parse(answer, self.params, self.solved)
        except AnswerError as e:
            message = t(e.key, lang, **e.fmt)
            if e.where:
                message = t("ex.answer.where", lang, row=e.where[0], column=t(e.where[1], lang)) + " " + message
            return Result(False, message, malformed=True)
        except Exception as e:  # a bug must not show a learner a traceback
            return Result(False, t("ex.answer.unreadable", lang, error=type(e).__name__), malformed=True)
        try:
            if self.kind.same(value, self.solved):
                return Result(True, t("ex.check.correct", lang))
            feedback = self.kind.diagnose(self.params, self.solved, value)
        except Exception as e:
            return Result(False, t("ex.answer.unreadable", lang, error=type(e).__name__), malformed=True)
        if feedback is None:
            return Result(False, t("ex.check.wrong", lang))
        message = " ".join(([t(feedback.lead, lang, **feedback.fmt)] if feedback.lead else [])
                           + [t(feedback.key, lang, **feedback.fmt)]
                           + [t("ex.check.or", lang, why=t(key, lang, **feedback.fmt)) for key in feedback.also]
                           + [t("ex.check.try_again", lang)])
        return Result(False, message, feedback.misconception)

    def hint(self, lang: str | None = None) -> str:
        return self.kind.hint(self.params, self.solved, lang or self.lang)

    def solution(self, lang: str | None = None) -> str:
        return self.kind.solution(self.params, self.solved, lang or self.lang)

    def answer(self) -> Any:
        """The engine's answer (for answer keys and tests)."""
        return self.solved.answer

    def answer_text(self, lang: str | None = None) -> str:
        return self.kind.answer_text(self.solved, lang or self.lang)

    @property
    def answer_lines(self) -> int:
        return self.kind.answer_lines(self.params, self.solved)

    def widget(self) -> "ExerciseWidget":
        # imported here: ipywidgets (a second to import) only for a notebook, not for a terminal's exercises
        from blockviz.exercises.widget import ExerciseWidget
        return ExerciseWidget(self)

    def _repr_html_(self) -> str:
        return markdown_html(self.prompt)
