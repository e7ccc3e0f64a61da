"""A fixed question: a lesson's "compute first, then check" question, checked like every kind.

The lesson writes the question (both languages) and passes the answer it computed from the engine a
cell earlier; this module reads the learner's answer with the same tolerant readers as the kinds
(answers.py: full-width and ideographic commas, 是/否/会/不会, "36 slots"), diagnoses the wrong answers
the lesson names (each one computed by the engine too, e.g. "the slots if the table were
contiguous"), then hints, then shows the solution, only when asked. Every question has its own hint
(what to look at, not the answer) and its own explanation in both languages: there is no generic one
to fall back on, so a question without them is an error.

    >>> ex = question("Slots of positions 3..6?", "位置 3…6 的槽位？", answer=[23, 8, 9, 10],
    ...               explain_en="The table jumps.", explain_zh="块表会跳。",
    ...               hint_en="Read block_table[t // B].", hint_zh="查 block_table[t // B]。")
    >>> ex.check("23，8，9，10").correct, ex.check("23、8、9、10").correct
    (True, True)
"""
from typing import Any

from blockviz.exercises import answers
from blockviz.brief import brief
from blockviz.exercises.core import Exercise, Feedback, Kind, Solved, partial
from blockviz.i18n import LANGS, t

# How an answer is read follows from the type of the engine's answer.
READERS = ("yes_no", "number", "numbers", "word")


def plain(value: Any) -> Any:
    """The engine's answer as JSON-able plain Python: tensors and numpy values become ints and lists,
    "True"/"yes" become a bool."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "yes", "no"):
        return value.strip().lower() in ("true", "yes")
    if isinstance(value, bool) or isinstance(value, str):
        return value
    if isinstance(value, (list, tuple, range)):
        return [plain(v) for v in value]
    if hasattr(value, "__index__"):
        return int(value)
    raise ValueError(f"a question's answer is a number, a list of numbers, yes/no or a word; got {brief(value, 80)}")


def reader_of(answer: Any) -> str:
    if isinstance(answer, bool):
        return "yes_no"
    if isinstance(answer, int):
        return "number"
    if isinstance(answer, list) and answer and all(isinstance(v, int) and not isinstance(v, bool) for v in answer):
        return "numbers"
    if isinstance(answer, str) and answer.strip():
        return "word"
    raise ValueError(f"a question's answer is a number, a non-empty list of numbers, yes/no or a word; "
                     f"got {brief(answer, 80)}")


def texts(value, name: str) -> dict[str, str]:
    """{"en": ..., "zh": ...}: both languages, each a non-empty text."""
    if (not isinstance(value, dict) or set(value) != set(LANGS)
            or not all(isinstance(v, str) and v.strip() for v in value.values())):
        raise ValueError(f"{name} needs its text in {' and '.join(LANGS)}, got {brief(value, 80)}")
    return value


class Question(Kind):
    """Params: question {en, zh}; answer (from the engine); explain {en, zh} (shown with the solution);
    hint {en, zh} (both required); mistakes: [[wrong answer, {en, zh}], ...], each wrong answer computed by the engine."""
    name = "question"
    param_names = ("question", "answer", "explain", "hint", "mistakes")

    def validate(self, params: dict) -> dict:
        answer = plain(params.get("answer"))
        reader = reader_of(answer)
        mistakes = []
        for wrong, why in params.get("mistakes") or ():
            wrong = plain(wrong)
            if reader_of(wrong) != reader or reader == "numbers" and len(wrong) != len(answer):
                raise ValueError(f"the wrong answer {brief(wrong, 40)} is not read like the answer {brief(answer, 40)}")
            if self.read(reader, wrong) != self.read(reader, answer):  # a "mistake" equal to the answer is no mistake
                mistakes.append([wrong, texts(why, "a mistake's diagnosis")])
        return {"question": texts(params.get("question"), "question"), "answer": answer,
                "explain": texts(params.get("explain"), "explain"), "hint": texts(params.get("hint"), "hint"),
                "mistakes": mistakes}

    def solve(self, params: dict) -> Solved:
        reader = reader_of(params["answer"])
        return Solved(self.read(reader, params["answer"]), {"reader": reader, "shown": params["answer"]})

    @staticmethod
    def read(reader: str, answer) -> Any:
        if reader == "yes_no":
            return answers.parse_yes_no(answer)
        if reader == "number":
            return answers.parse_amount(answer)
        if reader == "numbers":
            return answers.parse_ints(answer)
        return answers.squash(answers.normalize(answer))

    def parse(self, answer, params: dict, solved: Solved) -> Any:
        reader = solved.facts["reader"]
        if reader == "numbers":
            return answers.parse_ints(answer, count=len(solved.answer))
        return self.read(reader, answer)

    def prompt(self, params: dict, solved: Solved, lang: str) -> str:
        return params["question"][lang]

    def diagnose(self, params: dict, solved: Solved, value) -> Feedback | None:
        reader = solved.facts["reader"]
        for wrong, why in params["mistakes"]:
            if self.read(reader, wrong) == value:
                return Feedback("question.mistake", {"why_en": why["en"], "why_zh": why["zh"]})
        if reader == "numbers":
            wrong = [n for n, (a, b) in enumerate(zip(value, solved.answer), start=1) if a != b]
            return partial("question.partial", wrong, len(solved.answer))
        return None

    def hint(self, params: dict, solved: Solved, lang: str) -> str:
        return params["hint"][lang]

    def solution(self, params: dict, solved: Solved, lang: str) -> str:
        answer = t("question.answer", lang, answer=self.answer_text(solved, lang))
        return f"{answer} {params['explain'][lang]}"

    def answer_text(self, solved: Solved, lang: str) -> str:
        shown = solved.facts["shown"]
        if isinstance(shown, bool):
            return t("question.yes" if shown else "question.no", lang)
        return super().answer_text(Solved(shown, {}), lang)


class FixedExercise(Exercise):
    """A Question in its lesson: the prompt is the lesson's question, under the lesson's heading."""

    def prompt_in(self, lang: str) -> str:
        return f"**{t('question.title', lang)}**\n\n{self.kind.prompt(self.params, self.solved, lang)}"


QUESTION = Question()


def question(question_en: str, question_zh: str, answer, explain_en: str, explain_zh: str, hint_en: str, hint_zh: str,
             mistakes: list | tuple = (), lang: str = "en") -> FixedExercise:
    """A fixed question whose `answer` the engine computed, with its own explanation and hint (both required,
    in both languages); `mistakes` are (wrong answer, why_en, why_zh)."""
    if lang not in LANGS:
        raise ValueError(f"lang must be one of {LANGS}, got {brief(lang, 40)}")

    def both(en: str, zh: str) -> dict[str, str] | None:
        return {"en": en, "zh": zh} if en or zh else None
    params = {"question": both(question_en, question_zh), "answer": answer, "explain": both(explain_en, explain_zh),
              "hint": both(hint_en, hint_zh), "mistakes": [[wrong, both(en, zh)] for wrong, en, zh in mistakes]}
    return FixedExercise(QUESTION, QUESTION.validate(params), None, lang)
