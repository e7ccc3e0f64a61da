"""Tolerant input, one reader path for every kind and every fixed question: any way of writing the
right answer (ASCII, full-width or ideographic punctuation, brackets, full-width digits, a unit
after a number, Chinese or English yes/no) is accepted, and no unit turns a wrong number right."""
import pytest
from hypothesis import given, settings, strategies as st

from blockviz import exercises
from tests.exercises.questions import ask

SEEDS = (0, 1)
INSTANCES = [exercises.make(kind, seed) for kind in exercises.kinds() for seed in SEEDS]
ONE_NUMBER = [ex for ex in INSTANCES if isinstance(ex.answer(), int) and not isinstance(ex.answer(), bool)]

COMMAS = [", ", ",", "，", "、", " ，", ",  "]
COLONS = [": ", ":", "：", "： "]
BRACKETS = [("", ""), ("[", "]"), ("(", ")"), ("（", "）"), ("【", "】"), ("〔", "〕")]
UNITS = [" slots", " slot", "slots", " 个槽位", "个槽位", " 槽位", " blocks", "块", " 个块", " 个", " tokens",
         " 个 token", " keys", " 字节"]
FULL_WIDTH_DIGITS = str.maketrans("0123456789", "０１２３４５６７８９")


@st.composite
def formatting(draw, text: str) -> str:
    """The same answer written another way a learner might type it."""
    text = text.replace(", ", draw(st.sampled_from(COMMAS))).replace(": ", draw(st.sampled_from(COLONS)))
    if draw(st.booleans()):
        text = text.translate(FULL_WIDTH_DIGITS)
    if draw(st.booleans()):
        text = text.replace(" | ", draw(st.sampled_from([" | ", "|", "｜", " ｜ "])))
    left, right = draw(st.sampled_from(BRACKETS))
    space = draw(st.sampled_from(["", " ", "　", "\n"]))
    return f"{space}{left}{text}{right}{draw(st.sampled_from(['', '.', '。', ' ']))}"


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_any_formatting_of_the_engine_answer_is_accepted(data):
    ex = data.draw(st.sampled_from(INSTANCES))
    lang = data.draw(st.sampled_from(["en", "zh"]))
    text = data.draw(formatting(ex.answer_text(lang)))
    assert ex.check(text, lang).correct, (ex.id, text)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_a_number_with_a_unit_is_the_number(data):
    ex = data.draw(st.sampled_from(ONE_NUMBER))
    unit = data.draw(st.sampled_from(UNITS))
    left, right = data.draw(st.sampled_from(BRACKETS))
    assert ex.check(f"{left}{ex.answer()}{unit}{right}").correct, (ex.id, unit)
    wrong = data.draw(st.integers(-3, 10**6).filter(lambda n: n != ex.answer()))
    for answer in (f"{wrong}{unit}", f"{left}{wrong}{unit}{right}", f"{wrong} {unit}".translate(FULL_WIDTH_DIGITS)):
        assert not ex.check(answer).correct, (ex.id, answer)  # a unit never turns a wrong number right


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**5), st.integers(0, 10**5), st.sampled_from(UNITS), st.sampled_from(BRACKETS))
def test_a_fixed_question_reads_units_the_same_way(right, wrong, unit, brackets):
    ex = ask("How many?", "多少？", right)
    left, close = brackets
    assert ex.check(f"{left}{right}{unit}{close}").correct
    assert ex.check(f"{right}{unit}".translate(FULL_WIDTH_DIGITS)).correct
    if wrong != right:
        assert not ex.check(f"{wrong}{unit}").correct


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 999), min_size=1, max_size=6), st.sampled_from(COMMAS), st.sampled_from(UNITS),
       st.sampled_from(BRACKETS))
def test_lists_with_units_after_each_number(values, comma, unit, brackets):
    ex = ask("Blocks?", "哪些块？", values)
    left, right = brackets
    assert ex.check(left + comma.join(f"{v}{unit}" for v in values) + right).correct
    assert not ex.check(comma.join(f"{v + 1}{unit}" for v in values)).correct


YES_WORDS = ["yes", "Yes", "YES", "y", "Y", "true", "True", "是", "是的", "会", "能", "对", "可以"]
NO_WORDS = ["no", "No", "NO", "n", "N", "false", "False", "否", "不", "不会", "不能", "不对", "不是", "没有"]


@settings(max_examples=80, deadline=None)
@given(st.booleans(), st.data())
def test_yes_and_no_in_english_and_chinese(truth, data):
    ex = ask("Does it?", "会吗？", truth)
    word = data.draw(st.sampled_from(YES_WORDS if truth else NO_WORDS))
    other = data.draw(st.sampled_from(NO_WORDS if truth else YES_WORDS))
    left, right = data.draw(st.sampled_from(BRACKETS))
    end = data.draw(st.sampled_from(["", ".", "。", "!", "！", " "]))
    assert ex.check(f"{left}{word}{right}{end}").correct, word
    result = ex.check(f"{left}{other}{right}{end}")
    assert not result.correct and not result.malformed, other


@pytest.mark.parametrize("text", ["36 slots", "36 个槽位", "36个槽位", "[36 slots]", "（36 个槽位）", "３６ 个 token",
                                  "36 slots."])
def test_the_issues_examples(text):
    assert ask("How many slots?", "多少个槽位？", 36).check(text).correct
    assert ask("How many blocks?", "多少个块？", 3).check("3 blocks").correct
    assert ask("How many blocks?", "多少个块？", 3).check("3块").correct


def test_one_reader_module():
    """Every kind and the fixed question read answers through blockviz/exercises/answers.py only."""
    import ast
    from pathlib import Path
    root = Path(exercises.__file__).parent
    for path in [root / "question.py", *sorted((root / "kinds").glob("*.py"))]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == "parse":
                calls = {n.func.attr for n in ast.walk(node) if isinstance(n, ast.Call)
                         and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
                         and n.func.value.id in ("answers", "self")}
                assert calls, f"{path.name}: parse() does not use answers.py"
                assert not any(isinstance(n, ast.Attribute) and n.attr in ("split", "findall", "match")
                               for n in ast.walk(node)), f"{path.name}: parse() reads text itself"
