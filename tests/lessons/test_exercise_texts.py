"""Every question a lesson asks has its own hint (in blockviz/i18n/lesson_hints.py) and its own explanation,
in both languages: nothing falls back to a generic text. Read from the lesson sources, so a question
added without them fails here, not only when its notebook runs."""
import ast

import pytest

from blockviz.i18n import LANGS, STRINGS
from tests.lessons.common import SOURCES, code_cells, typed_numbers

HINTS = {key.removeprefix("hint."): texts for key, texts in STRINGS.items() if key.startswith("hint.")}


def exercise_calls(source) -> list[ast.Call]:
    """The L.exercise(...) calls of a lesson's code cells (its English notebook: the calls are the same in both)."""
    calls = []
    for code in code_cells(source, "en"):
        tree = ast.parse("\n".join(line for line in code.splitlines() if not line.lstrip().startswith("%")))
        calls += [node for node in ast.walk(tree) if isinstance(node, ast.Call)
                  and isinstance(node.func, ast.Attribute) and node.func.attr == "exercise"
                  and isinstance(node.func.value, ast.Name) and node.func.value.id == "L"]
    return calls


CALLS = [(source.stem, call) for source in SOURCES for call in exercise_calls(source)]


def argument(call: ast.Call, name: str, position: int):
    """An argument given by keyword or at its place in Lesson.exercise(question_en, question_zh, expected,
    explain_en, explain_zh, hint, ...)."""
    named = {k.arg: k.value for k in call.keywords}
    if name in named:
        return named[name]
    return call.args[position] if len(call.args) > position else None


def test_the_lessons_ask_questions():
    assert len(CALLS) >= 49


@pytest.mark.parametrize("lesson, call", CALLS, ids=[f"{name}:{call.lineno}" for name, call in CALLS])
def test_every_question_names_its_own_hint_and_writes_its_explanation(lesson, call):
    hint = argument(call, "hint", 5)
    assert isinstance(hint, ast.Constant) and isinstance(hint.value, str), f"{lesson}:{call.lineno}: no hint key"
    assert hint.value in HINTS, f"{lesson}:{call.lineno}: hint.{hint.value} is not in the table"
    assert hint.value.split(".")[0] == lesson[:2], "a hint key starts with its lesson's number"
    for position, lang in enumerate(LANGS, start=3):
        explain = argument(call, f"explain_{lang}", position)
        assert explain is not None, f"{lesson}:{call.lineno}: no explanation in {lang}"
        assert not (isinstance(explain, ast.Constant) and not str(explain.value).strip()), f"{lesson}:{call.lineno}"


def test_each_hint_belongs_to_one_question_and_says_something_of_its_own():
    used = [argument(call, "hint", 5).value for _, call in CALLS]
    assert len(used) == len(set(used)), "two questions share a hint"
    assert set(used) == set(HINTS), "a hint no question uses"
    for lang in LANGS:
        texts = [texts[lang] for texts in HINTS.values()]
        assert len(texts) == len(set(texts)), f"two hints say the same in {lang}"


def test_there_is_no_generic_hint_to_fall_back_on():
    assert not any("Everything you need is in the cells above" in texts["en"] for texts in STRINGS.values())


def test_hints_type_no_numbers():
    """A hint says what to look at in any run of its question, so it cites no number of one run."""
    typed = {(key, lang): found for key, texts in HINTS.items() for lang in LANGS if (found := typed_numbers(texts[lang]))}
    assert typed == {}


def run_until(source_name: str, variable: str, monkeypatch) -> dict:
    """Run a lesson's English code cells in order, displays dropped, until `variable` is defined."""
    monkeypatch.setattr("IPython.display.display", lambda *a, **k: None)
    monkeypatch.setattr("blockviz.lessons.lesson.display", lambda *a, **k: None)
    source = next(s for s in SOURCES if s.stem == source_name)
    namespace: dict = {}
    for code in code_cells(source, "en"):
        exec(compile(code, f"{source_name}.md", "exec"), namespace)
        if variable in namespace:
            return namespace
    raise AssertionError(f"{source_name} defines no {variable}")


@pytest.mark.parametrize("lesson, variable, wrong, words", [
    ("02_block_lifecycle", "ex_hit", lambda ns: ns["c_blocks"], "never looks up"),   # every block of C counted
    ("05_under_pressure", "waste", lambda ns: 0, "tokens without K/V"),              # tokens, not slots
    ("b0_paging", "ex_blocks", lambda ns: len(ns["prompt"]) // ns["B"] + 1, "len(seq) // block_size + 1"),  # one too many
    ("b0_paging", "ex_next", lambda ns: ns["a_table"][::-1][:len(ns["c"].block_table)], "tail of the free queue"),
])
def test_the_commonest_mistakes_are_diagnosed_by_name(lesson, variable, wrong, words, monkeypatch, tmp_path):
    monkeypatch.setenv("BLOCKVIZ_HOME", str(tmp_path))
    namespace = run_until(lesson, variable, monkeypatch)
    ex = namespace[variable]
    answer = wrong(namespace)
    assert answer != ex.answer()
    result = ex.check(str(answer), "en")
    assert not result.correct and words in result.message, result.message
    assert "Not quite" not in result.message
