"""Reading answers: natural formats in, a value or a clear AnswerError out."""
import pytest

from blockviz.exercises import answers
from blockviz.exercises.answers import AnswerError


@pytest.mark.parametrize("text", [
    "23, 8, 9, 10", "[23,8,9,10]", "23 8 9 10", "23，8，9，10", "（23，8，9，10）", "【23、8、9、10】",
    "slot_mapping = [23, 8, 9, 10]", "23; 8; 9; 10.", "(23, 8, 9, 10)", "２３，８，９，１０", [23, 8, 9, 10],
])
def test_int_lists_in_many_notations(text):
    assert answers.parse_ints(text) == [23, 8, 9, 10]


def test_signed_and_unicode_minus():
    assert answers.parse_int("-1") == -1
    assert answers.parse_int("−1") == -1
    assert answers.parse_int(" 7 ") == 7
    assert answers.parse_int(7) == 7


@pytest.mark.parametrize("bad, key", [
    ("", "ex.answer.empty"), ("   ", "ex.answer.empty"), (None, "ex.answer.empty"),
    ("abc", "ex.answer.not_number"), ("1.5", "ex.answer.not_number"), ({1: 2}, "ex.answer.type"),
    (1.5, "ex.answer.not_number"), (float("nan"), "ex.answer.not_number"), (float("inf"), "ex.answer.not_number"),
    ("9" * 19, "ex.answer.not_number"), ("1" * 5000, "ex.answer.too_long"), ([[[[1]]]], "ex.answer.too_long"),
    (list(range(1000)), "ex.answer.too_long"),
])
def test_malformed_numbers(bad, key):
    with pytest.raises(AnswerError) as e:
        answers.parse_ints(bad)
    assert e.value.key == key


@pytest.mark.parametrize("text", ["36", "٣٦", "３６", 36.0, "36 slots", "36.0", "slot = 36", " 36 blocks. ", "36个"])
def test_one_number_in_any_script_float_or_with_a_unit(text):
    assert answers.parse_int(text) == 36


def test_counts():
    with pytest.raises(AnswerError) as e:
        answers.parse_ints("1, 2", count=3)
    assert (e.value.key, e.value.fmt) == ("ex.answer.count", {"expected": 3, "got": 2})
    with pytest.raises(AnswerError):
        answers.parse_int("1 2")


def test_words_and_labels():
    vocab = {"free": "free", "cached-free": "cached-free", "空闲": "free"}
    assert answers.parse_words("Free, cached free，空闲", vocab) == ["free", "cached-free", "free"]
    assert answers.parse_words("3: free; 5: cached_free", vocab) == ["free", "cached-free"]
    with pytest.raises(AnswerError):
        answers.parse_words("purple", vocab)
    assert answers.parse_labels("b, a", ["A", "B"]) == ["B", "A"]
    assert answers.parse_labels("无", ["A"]) == [] == answers.parse_labels("none", ["A"])
    with pytest.raises(AnswerError):
        answers.parse_labels("Q", ["A", "B"])
    assert answers.parse_yes_no("是") is True and answers.parse_yes_no("No") is False


@pytest.mark.parametrize("text, value", [
    ("1,835,008", 1835008), ("1 835 008", 1835008), ("1_835_008", 1835008), ("1835008 bytes", 1835008),
    ("28 MiB", 28), ("28MiB", 28), ("1170 blocks", 1170), ("１１７０块", 1170), ("= 9", 9), (65536, 65536),
])
def test_amounts_with_separators_and_units(text, value):
    assert answers.parse_amount(text) == value


@pytest.mark.parametrize("bad, key", [("0, 4, 12", "ex.answer.one_number"), ("1.75 MiB", "ex.answer.not_number"),
                                      ("", "ex.answer.empty")])
def test_malformed_amounts(bad, key):
    with pytest.raises(AnswerError) as e:
        answers.parse_amount(bad)
    assert e.value.key == key
