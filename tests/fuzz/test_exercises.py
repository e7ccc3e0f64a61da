"""Random JSON as exercise ids and params, random answers for every kind: a ValueError or a
working exercise, never another exception, never a slow case."""
import json
from random import Random

from hypothesis import HealthCheck, event, given, settings, strategies as st

from blockviz import exercises
from blockviz.exercises.core import Result
from blockviz.exercises.kinds import KINDS
from tests.fuzz.strategies import JSON, NUMBERS, SCALARS, TEXT, ops

KIND = st.sampled_from(exercises.kinds())
FAST = settings(max_examples=120, deadline=2000, suppress_health_check=[HealthCheck.too_slow])


def works(exercise) -> None:
    """Everything a learner can ask of an exercise answers without raising."""
    assert exercise.prompt and exercise.hint() and exercise.solution()
    assert isinstance(exercise.check("1"), Result)
    assert exercise.check(exercise.answer_text()).correct


@FAST
@given(kind=KIND, payload=JSON)
def test_random_json_as_an_exercise_id(kind, payload):
    try:
        exercise = exercises.from_id(f"{kind}:{json.dumps(payload)}")
    except ValueError:
        return
    works(exercise)


@FAST
@given(text=st.one_of(TEXT, st.text(max_size=30).map(lambda s: s.replace("\ud800", ""))))
def test_random_text_as_an_exercise_id(text):
    try:
        exercise = exercises.from_id(text)
    except ValueError:
        return
    works(exercise)


def near(value) -> st.SearchStrategy:
    """Values of the same shape as `value`, mostly small: what a teacher editing an id might write."""
    if isinstance(value, bool) or not isinstance(value, (int, list)):
        return st.just(value)
    if isinstance(value, int):
        return st.integers(0, 2 * value + 2)
    if value and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return st.lists(st.integers(0, max(value) + 2), min_size=1, max_size=len(value) + 2)
    return ops() if value and isinstance(value[0], list) else st.just(value)


def mutations(params: dict) -> st.SearchStrategy:
    """A generated exercise's params with one value replaced (by a nearby one, or anything), one
    removed or one added."""
    keys = sorted(params)
    replaced = st.sampled_from(keys).flatmap(
        lambda k: st.one_of(near(params[k]), SCALARS, NUMBERS, JSON, ops()).map(lambda v: {**params, k: v}))
    removed = st.sampled_from(keys).map(lambda k: {n: v for n, v in params.items() if n != k})
    added = st.tuples(TEXT, JSON).map(lambda kv: {**params, kv[0]: kv[1]})
    return st.one_of(replaced, replaced, removed, added)


@settings(max_examples=200, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), kind=KIND, seed=st.integers(0, 50))
def test_generated_params_with_one_value_changed(data, kind, seed):
    params = data.draw(mutations(KINDS[kind].generate(Random(seed))), label="params")
    try:
        exercise = exercises.make(kind, **params)
    except ValueError:
        event("refused")
        return
    event("accepted")
    works(exercise)


EXAMPLES = {kind: exercises.make(kind, seed=3) for kind in exercises.kinds()}
ANSWERS = st.one_of(JSON, st.text(max_size=40), st.text("0123456789,;、，。 []-abcyesno是否无", max_size=30),
                    st.lists(st.integers(-5, 60), max_size=8))


@settings(max_examples=300, deadline=1000)
@given(kind=KIND, answer=ANSWERS)
def test_random_answers_for_every_kind(kind, answer):
    result = EXAMPLES[kind].check(answer)
    assert isinstance(result, Result) and isinstance(result.message, str) and result.message
    if result.correct:
        assert not result.malformed
