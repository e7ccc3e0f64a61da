"""What the learner's side of a check sends back: builtins and the checker's own records only.

Anything else the learner's code returned or left in the pool (an object whose __eq__ loops, an int
subclass, a value nested without end) becomes a Foreign holding its brief repr: it compares by that
text, so the parent's comparison runs no learner code and still reports the value as different."""
from dataclasses import dataclass, fields, is_dataclass

from blockviz.brief import brief
from blockviz.diy.compare import StepResult
from blockviz.diy.culprit import LoggedCall
from blockviz.diy.state import BlockValues, RequestState, State

MAX_DEPTH = 12
MAX_ITEMS = 1_000_000  # in one collection: a pool's token ids are far fewer
RECORDS = (StepResult, State, BlockValues, RequestState, LoggedCall)
ATOMS = (int, float, str, bool, type(None))


@dataclass(frozen=True)
class Foreign:
    """A value of another type than the engine's, shown as its repr."""
    text: str

    def __str__(self) -> str:
        return self.text


def plain(value, depth: int = 0):
    kind = type(value)  # the exact type: a subclass brings its own __eq__
    if kind in ATOMS:
        return value
    if depth > MAX_DEPTH:
        return Foreign("…")
    if kind in (tuple, list, frozenset, set, dict) and len(value) > MAX_ITEMS:
        return Foreign(f"<{kind.__name__} of {len(value)} items>")
    if kind in (tuple, list):
        return kind(plain(v, depth + 1) for v in value)
    if kind in (frozenset, set):
        return kind(plain(v, depth + 1) for v in value)
    if kind is dict:
        return {plain(k, depth + 1): plain(v, depth + 1) for k, v in value.items()}
    if kind in RECORDS and is_dataclass(value):
        return kind(*(plain(getattr(value, f.name), depth + 1) for f in fields(value)))
    return Foreign(brief(value))
