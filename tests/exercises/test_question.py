"""A lesson's fixed question is read and checked like every kind: tolerant input, the diagnoses the
lesson names, hint and solution only when asked."""
import pytest
import torch
from hypothesis import given, strategies as st

from blockviz.exercises.question import question
from blockviz.i18n import STRINGS
from tests.exercises.questions import ask


def test_a_list_answer_accepts_chinese_punctuation_and_brackets():
    ex = ask("Slots?", "槽位？", [23, 8, 9, 10])
    for text in ["23, 8, 9, 10", "23，8，9，10", "23、8、9、10", "[23, 8, 9, 10]", "23 8 9 10", "slot_mapping = [23，8，9，10]",
                 "２３，８，９，１０"]:
        assert ex.check(text).correct, text
    partly = ex.check("23, 8, 9, 11", "en")
    assert not partly.correct and "3 of 4" in partly.message and "entry 4" in partly.message
    assert "需要 4 个数" in ex.check("23，8", "zh").message and ex.check("23，8").malformed


def test_a_number_reads_past_units_and_thousands():
    ex = ask("How many slots?", "多少个槽位？", 36)
    for text in ["36", "36 slots", "36 个槽位", "36 槽位", "３６", "36.0"]:
        assert ex.check(text).correct, text
    assert ask("Bytes?", "字节？", 1835008).check("1,835,008 bytes").correct
    assert ex.check("thirty-six").malformed


@pytest.mark.parametrize("answer", [False, "False", "no", torch.tensor(False)])
def test_yes_no_in_english_and_chinese(answer):
    if isinstance(answer, torch.Tensor):
        answer = answer.item()
    ex = ask("Can it?", "能吗？", answer)
    for text in ["no", "No", "n", "false", "否", "不", "不会", "不能", "没有"]:
        assert ex.check(text).correct, text
    for text in ["yes", "是", "会", "能", "可以"]:
        result = ex.check(text)
        assert not result.correct and not result.malformed, text
    assert ex.answer_text("zh") == "否" and ex.answer_text("en") == "no"


def test_a_word_answer_ignores_case_and_spaces():
    ex = ask("Who is preempted?", "谁被抢占？", "b")
    assert ex.check(" B ").correct and not ex.check("A").correct


def test_a_named_mistake_gets_its_own_diagnosis_in_the_learners_language():
    ex = ask("Slots?", "槽位？", [23, 8, 9, 10], "It jumps.", "会跳跃。",
                  mistakes=[([3, 4, 5, 6], "That is t itself: the table was skipped.", "这就是 t 本身：没有查块表。"),
                            ([23, 8, 9, 10], "never shown", "不会出现")])  # a "mistake" equal to the answer is dropped
    assert len(ex.params["mistakes"]) == 1
    assert "没有查块表" in ex.check("3、4、5、6", "zh").message
    assert "table was skipped" in ex.check("3, 4, 5, 6", "en").message
    assert ex.check("23、8、9、10").correct


def test_nothing_reveals_the_answer_until_asked():
    ex = ask("Slots of A?", "A 的槽位？", [23, 8, 9, 10], "Because the table jumps.", "因为块表会跳。")
    shown = ex.prompt_in("en") + ex.prompt_in("zh") + ex.hint("en") + ex.hint("zh") + ex.check("1,2,3,4").message
    assert "23" not in shown and "jumps" not in shown
    assert "23, 8, 9, 10" in ex.solution("en") and "块表会跳" in ex.solution("zh")
    widget = ex.widget()
    assert widget.feedback.value == "" and "23" not in widget.prompt.value


def test_tensors_and_numpy_answers_become_plain_values():
    import numpy as np
    assert ask("q", "q", torch.tensor([0, 5, 9])).answer() == [0, 5, 9]
    assert ask("q", "q", np.int64(7)).answer() == 7


@pytest.mark.parametrize("bad", [None, [], "", 1.5, {"a": 1}])
def test_an_answer_no_reader_can_read_is_refused_when_the_question_is_made(bad):
    with pytest.raises(ValueError):
        ask("q", "q", bad)


def test_a_question_needs_both_languages():
    with pytest.raises(ValueError, match="en and zh"):
        ask("only English", "", 3)
    with pytest.raises(ValueError, match="hint needs its text in en and zh"):
        ask("q", "问", 3, hint_zh="")


@pytest.mark.parametrize("missing", ["explain", "hint"])
def test_a_question_without_its_own_hint_or_explanation_is_refused_not_given_a_generic_one(missing):
    texts = {"explain_en": "Why.", "explain_zh": "为什么。", "hint_en": "Look.", "hint_zh": "看。",
             f"{missing}_en": "", f"{missing}_zh": ""}
    with pytest.raises(ValueError, match=f"{missing} needs its text"):
        question("q", "问", 3, **texts)
    assert "question.hint" not in STRINGS


@given(st.lists(st.integers(0, 10**6), min_size=1, max_size=12), st.sampled_from([", ", "，", "、", " ", "；"]))
def test_any_list_written_with_any_separator_is_read_back(values, separator):
    assert ask("q", "q", values).check(separator.join(map(str, values))).correct


def test_a_mistake_must_be_answerable_like_the_answer():
    with pytest.raises(ValueError, match="not read like the answer"):
        ask("q", "q", [1, 2, 3], mistakes=[([1, 2], "short", "短")])
    with pytest.raises(ValueError, match="not read like the answer"):
        ask("q", "q", 3, mistakes=[([1, 2], "a list", "列表")])


QUESTIONS = [ask("q", "q", [23, 8, 9, 10]), ask("q", "q", 36), ask("q", "q", False),
             ask("q", "q", "b")]


@given(st.text(max_size=80))
def test_any_text_gets_a_message_never_an_error(text):
    for ex in QUESTIONS:
        for lang in ("en", "zh"):
            result = ex.check(text, lang)
            assert result.message and (not result.correct or not result.malformed)
