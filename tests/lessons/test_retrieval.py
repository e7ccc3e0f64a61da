"""Lessons 02–10 open with questions from earlier lessons; lesson 12 weights its review by the saved
self-assessment. The references here (which lesson teaches a kind, a weight per rating) are the
catalog's and the docstring's, counted again by hand."""
from collections import Counter

import pytest
from hypothesis import given, strategies as st

from blockviz import exercises
from blockviz.exercises.kinds import KINDS
from blockviz.exercises.sets import SETS
from blockviz.lessons import LEVELS, Lesson, load_self_assessment, save_self_assessment
from blockviz.lessons.retrieval import OPTIONAL_LESSONS, lesson_ratings, quotas, retrieval_items, weighted_review
from tests.lessons.common import SOURCES, code_cells

OPENING = [source for source in SOURCES if source.stem[:2].isdigit() and 2 <= int(source.stem[:2]) <= 10]
REVIEW = [(item.kind, item.seed) for item in SETS["lesson12"].items]


@pytest.mark.parametrize("source", OPENING, ids=lambda s: s.stem)
def test_lessons_02_to_10_open_with_retrieval_right_after_their_header(source):
    cells = code_cells(source, "en")
    header = next(i for i, code in enumerate(cells) if "L.header(" in code)
    assert cells[header + 1].startswith("L.retrieval()"), source.stem


@pytest.mark.parametrize("number", range(2, 11))
def test_two_or_three_questions_each_from_an_earlier_lesson_the_latest_and_the_earliest_among_them(number):
    items = retrieval_items(f"{number:02d}_lesson")
    assert 2 <= len(items) <= 3 and len(set(items)) == len(items)
    taught = [KINDS[kind].lesson for kind, _ in items]
    assert all(1 <= n < number for n in taught)
    earlier = sorted({kind.lesson for kind in KINDS.values() if 1 <= kind.lesson < number and kind.lesson not in OPTIONAL_LESSONS})
    assert not set(taught) & set(OPTIONAL_LESSONS)   # a learner may have skipped an optional lesson
    assert taught[0] == earlier[-1] and taught[-1] == earlier[0]
    for kind, seed in items:  # each is a real exercise of the one system, answered by the engine
        ex = exercises.make(kind, seed=seed)
        assert ex.answer() is not None and ex.hint("zh") and ex.solution("zh")


def test_lesson_01_has_nothing_earlier_to_retrieve():
    with pytest.raises(ValueError, match="no lesson before"):
        retrieval_items("01_token_to_slot")


def test_retrieval_shows_each_question_and_its_lesson_and_writes_nothing(tmp_path, monkeypatch):
    from blockviz.exercises.widget import ExerciseWidget
    monkeypatch.setenv("BLOCKVIZ_HOME", str(tmp_path))
    shown = []
    monkeypatch.setattr("blockviz.lessons.lesson.display", shown.append)
    Lesson("04_decode", "zh").retrieval()
    widgets = [s for s in shown if isinstance(s, ExerciseWidget)]
    assert len(widgets) == 3 and "不计分" in shown[0].data
    assert "出自" in shown[2].data and "03_prefix_identity.ipynb" in shown[2].data  # the latest lesson first
    widgets[0].answer.value = "1"
    widgets[0].check()
    assert list(tmp_path.iterdir()) == []  # checked, not graded: nothing recorded


def save(home, ratings_by_lesson):
    for name, ratings in ratings_by_lesson.items():
        save_self_assessment(name, ratings, home=home)
    return lesson_ratings(load_self_assessment(home))


def test_the_latest_self_assessment_of_each_lesson_is_read_back(tmp_path):
    save(tmp_path, {"03_prefix_identity": {"a": "closed_book", "b": "closed_book"}})
    ratings = save(tmp_path, {"03_prefix_identity": {"a": "not_yet", "b": "with_notes", "c": ""},
                              "01_token_to_slot": {"a": "", "b": ""}, "12_review": {"a": "closed_book"}})
    assert ratings == {3: "not_yet", 12: "closed_book"}  # the mean of 0 and 1, toward the weaker; all-unrated left out
    assert save(tmp_path, {"b2_deallocate": {"a": "not_yet"}}) == ratings  # the build-it-yourself track has no number
    assert save(tmp_path, {"03_prefix_identity": {"a": "with_notes", "b": "closed_book"}})[3] == "with_notes"


def test_with_nothing_saved_the_review_is_the_practice_set_and_says_so(tmp_path, monkeypatch):
    assert lesson_ratings(load_self_assessment(tmp_path)) == {}
    assert weighted_review(REVIEW, {}) == REVIEW
    shown = []
    monkeypatch.setattr("blockviz.lessons.lesson.display", shown.append)
    Lesson("12_review", "en").review_plan(REVIEW, {}, home=tmp_path)
    assert "No self-assessment is saved" in shown[0].data and "16 questions" in shown[0].data


def test_weak_lessons_get_more_questions_first_and_strong_ones_keep_one(tmp_path, monkeypatch):
    ratings = {1: "not_yet", 2: "closed_book", 3: "closed_book", 4: "closed_book", 5: "closed_book",
               6: "closed_book", 7: "closed_book"}
    review = weighted_review(REVIEW, ratings)
    per_lesson = Counter(KINDS[kind].lesson for kind, _ in review)
    assert len(review) == len(REVIEW) and len(set(review)) == len(review)
    assert per_lesson[1] > Counter(KINDS[kind].lesson for kind, _ in REVIEW)[1]
    assert all(per_lesson[n] >= 1 for n in range(2, 8))
    assert KINDS[review[0][0]].lesson == 1
    shown = []
    monkeypatch.setattr("blockviz.lessons.lesson.display", shown.append)
    Lesson("12_review", "zh").review_plan(review, ratings, home=tmp_path)
    assert "还不会" in shown[0].data and "| 题数 |" in shown[0].data


@given(st.dictionaries(st.integers(1, 7), st.sampled_from(LEVELS)))
def test_any_ratings_keep_the_length_every_lesson_and_give_a_weaker_lesson_no_fewer(ratings):
    review = weighted_review(REVIEW, ratings)
    assert len(review) == len(REVIEW) and len(set(review)) == len(review)
    per_lesson = Counter(KINDS[kind].lesson for kind, _ in review)
    assert set(per_lesson) == {KINDS[kind].lesson for kind, _ in REVIEW}
    if ratings:
        weight = {"not_yet": 3, "with_notes": 2, "closed_book": 1}
        w = {n: weight.get(ratings.get(n), 2) for n in per_lesson}
        for a in per_lesson:
            for b in per_lesson:
                if w[a] > w[b]:
                    assert per_lesson[a] >= per_lesson[b], (ratings, per_lesson)
        lessons = [KINDS[kind].lesson for kind, _ in review]
        firsts = list(dict.fromkeys(lessons))
        assert [w[n] for n in firsts] == sorted((w[n] for n in firsts), reverse=True)


def test_quotas_share_by_weight_with_one_each_at_least():
    assert quotas([1, 2], {1: "not_yet", 2: "closed_book"}, 6) == {1: 4, 2: 2}  # 1 + 1, then 4 spare as 3 : 1
    with pytest.raises(ValueError):
        quotas([1, 2, 3], {}, 2)
