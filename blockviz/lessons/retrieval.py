"""Retrieval: lessons 02–10 open with questions from earlier lessons, and lesson 12 weights its review by
the learner's saved self-assessment.

Recalling an idea a few lessons after learning it is what makes it stay, so a lesson starts by asking
two or three of the exercises of earlier ones: the one exercise system's generated kinds (answers
computed by the engine), checked like every exercise and recorded nowhere (checked, not graded).

Lesson 12 reads back the self-assessments saved at the end of each lesson (self_assessment.py) and
gives the lessons rated weakest more of its questions, first. With nothing saved it reviews every
kind once, in the practice set's order.
"""
from __future__ import annotations

from blockviz.exercises.kinds import KINDS
from blockviz.lessons.self_assessment import LEVELS, level_of

# Seeds of the opening questions: lesson n asks 500 + 10 n + i, apart from the practice sets' (1..34).
RETRIEVAL_SEED = 500
# Optional lessons (00's path: 08 and 08b): no later lesson opens with their questions, as a learner may
# have skipped them.
OPTIONAL_LESSONS = (8,)
# Copies of a review exercise beyond the first take a new seed, this far on.
COPY_SEED = 1000
# How much a lesson weighs in the review, by its rating: "not yet" three times "closed book". A lesson
# with no rating saved, when others have one, weighs as "with notes": not knowing is not mastery.
WEIGHTS = {"not_yet": 3, "with_notes": 2, "closed_book": 1}
UNRATED = WEIGHTS["with_notes"]


def lesson_number(name: str) -> int:
    """ "05_under_pressure" -> 5 (a lesson split into parts keeps its number)."""
    if not name[:2].isdigit():
        raise ValueError(f"{name!r} is not a numbered lesson")
    return int(name[:2])


def kinds_before(lesson: int) -> dict[int, list[str]]:
    """The exercise kinds taught before `lesson`, by the lesson that teaches them, in course order (the
    optional lessons' left out)."""
    taught: dict[int, list[str]] = {}
    for name, kind in KINDS.items():
        if 1 <= kind.lesson < lesson and kind.lesson not in OPTIONAL_LESSONS:
            taught.setdefault(kind.lesson, []).append(name)
    return dict(sorted(taught.items()))


def retrieval_items(lesson: str) -> list[tuple[str, int]]:
    """Two or three (kind, seed) from earlier lessons, spaced: one from the latest lesson with exercises,
    one from the earliest, and, when there are three or more, one from between them (which one rotates
    with the lesson, so that each in-between lesson comes back)."""
    n = lesson_number(lesson)
    taught = kinds_before(n)
    if not taught:
        raise ValueError(f"no lesson before {lesson!r} has exercises to retrieve")
    lessons = list(taught)
    between = lessons[1:-1]
    picks = [lessons[-1]] + ([between[n % len(between)]] if between else []) + [lessons[0]]
    items = []
    for i, source in enumerate(picks):
        names = taught[source]
        items.append((names[(n + i) % len(names)], RETRIEVAL_SEED + 10 * n + i))  # the kind rotates with the lesson
    return items


def lesson_ratings(saved: dict) -> dict[int, str]:
    """Each lesson's rating from its latest saved self-assessment, by lesson number: the level of the mean
    of the skills rated, rounded toward the weaker (unrated skills left out; a level saved as its label
    reads as its key: self_assessment.level_of); lessons with nothing rated are absent."""
    levels: dict[int, list[int]] = {}
    for name, entries in saved.get("lessons", {}).items():
        if not name[:2].isdigit() or not entries:
            continue
        rated = [LEVELS.index(level) for value in entries[-1].get("ratings", {}).values()
                 if (level := level_of(value)) is not None]
        if rated:
            levels.setdefault(int(name[:2]), []).extend(rated)
    return {n: LEVELS[int(sum(v) / len(v))] for n, v in sorted(levels.items())}


def quotas(lessons: list[int], ratings: dict[int, str], length: int) -> dict[int, int]:
    """`length` questions shared among `lessons` in proportion to their weights (largest remainder), at
    least one each."""
    weights = {n: WEIGHTS[ratings[n]] if n in ratings else UNRATED for n in lessons}
    spare = length - len(lessons)
    if spare < 0:
        raise ValueError(f"a review of {length} questions cannot cover {len(lessons)} lessons")
    total = sum(weights.values())
    shares = {n: spare * w / total for n, w in weights.items()}
    counts = {n: 1 + int(share) for n, share in shares.items()}
    by_remainder = sorted(lessons, key=lambda n: (-(shares[n] - int(shares[n])), -weights[n], n))
    for n in by_remainder[:length - sum(counts.values())]:
        counts[n] += 1
    return counts


def weighted_review(items: list[tuple[str, int]], ratings: dict[int, str]) -> list[tuple[str, int]]:
    """The review of `items` ((kind, seed), lessons interleaved) weighted by `ratings`: with none, the items as
    they are. Otherwise as many questions, shared among the lessons by weight (a lesson's kinds repeat with
    new seeds when it gets more questions than kinds), the weakest lessons first and interleaved so that
    neighbours come from different lessons while more than one has questions left."""
    if not ratings:
        return list(items)
    by_lesson: dict[int, list[tuple[str, int]]] = {}
    for kind, seed in items:
        by_lesson.setdefault(KINDS[kind].lesson, []).append((kind, seed))
    counts = quotas(list(by_lesson), ratings, len(items))
    queues = {}
    for n, own in by_lesson.items():
        queues[n] = [(own[k % len(own)][0], own[k % len(own)][1] + COPY_SEED * (k // len(own))) for k in range(counts[n])]
    order = sorted(queues, key=lambda n: (-WEIGHTS.get(ratings.get(n, ""), UNRATED), n))
    review: list[tuple[str, int]] = []
    while any(queues.values()):
        for n in order:
            if queues[n]:
                review.append(queues[n].pop(0))
    return review
