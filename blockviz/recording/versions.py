"""One value over time: the steps at which it changed and what it became (a "fat node").

The recording keeps one Versions per block, per hash and per request field, so the picture
of any step is a binary search per value read, and memory grows with what changed, never with
the number of steps the value stayed the same. Most values change once or twice (a hash is
registered, later evicted), so a single version is kept as a plain step and value; an array of
steps and a list of values only appear at the second change.
"""
from array import array
from bisect import bisect_right
from typing import Any


class Versions:
    __slots__ = ("steps", "values")

    def __init__(self):
        self.steps: int | array | None = None  # None: no version; an int: one; an array: several
        self.values: Any = None

    def set(self, step: int, value: Any):
        steps = self.steps
        if steps is None:
            self.steps, self.values = step, value
            return
        if type(steps) is int:
            if self.values == value:
                return
            if steps == step:
                self.values = value  # changed again in the same step: only the step's end counts
            else:
                self.steps, self.values = array("q", (steps, step)), [self.values, value]
            return
        values = self.values
        if values[-1] == value:
            return
        if steps[-1] == step:
            values[-1] = value
            if len(values) > 1 and values[-2] == value:
                steps.pop()
                values.pop()
            return
        steps.append(step)
        values.append(value)

    def at(self, step: int, default: Any = None) -> Any:
        steps = self.steps
        if steps is None:
            return default
        if type(steps) is int:
            return self.values if steps <= step else default
        if steps[-1] <= step:  # the latest version: the common case when following the live end
            return self.values[-1]
        i = bisect_right(steps, step) - 1
        return self.values[i] if i >= 0 else default

    @property
    def last(self) -> Any:
        if self.steps is None:
            return None
        return self.values if type(self.steps) is int else self.values[-1]

    @property
    def last_step(self) -> int:
        if self.steps is None:
            return -1
        return self.steps if type(self.steps) is int else self.steps[-1]

    def forget_before(self, step: int):
        """Drop what no step >= `step` can read: every version but the one current at `step`."""
        steps = self.steps
        if steps is None or type(steps) is int:
            return
        i = bisect_right(steps, step) - 1
        if i > 0:
            del steps[:i]
            del self.values[:i]
