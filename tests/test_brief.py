"""brief(): describing any user value is short and never raises; every error message built from a
deep or huge value (exercises, answers, engine arguments) is a ValueError, never a RecursionError."""
import pytest

from blockviz import exercises
from blockviz.brief import brief
from blockviz.exercises.kinds import KINDS


def deep(n: int = 5000):
    x: list = []
    for _ in range(n):
        x = [x]
    return x


class BadRepr:
    def __repr__(self):
        raise RuntimeError("no")


VALUES = {"deep list": deep(), "deep dict": {"a": deep()}, "long text": "x" * 10**6,
          "8000-digit int": int("9" * 4000) ** 2, "repr raises": BadRepr(), "bytes": b"\xff" * 10**5,
          "many deep": (deep(),) * 100}


@pytest.mark.parametrize("name", VALUES)
def test_any_value_is_described_short(name):
    text = brief(VALUES[name], 80)
    assert isinstance(text, str) and 0 < len(text) <= 80


def test_short_values_are_their_repr():
    assert brief("A") == "'A'" and brief([1, 2, 3]) == "[1, 2, 3]" and brief(None) == "None"


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_make_with_a_deep_value_in_any_param_is_a_value_error(kind):
    for name in KINDS[kind].param_names:
        with pytest.raises(ValueError) as raised:
            exercises.make(kind, **{name: deep()})
        assert len(str(raised.value)) < 2000


def test_a_deep_answer_is_answered():
    exercise = exercises.make("slot_mapping", seed=1)
    result = exercise.check(deep())
    assert not result.correct
