"""One value over time: the steps at which it changed and what it became (a "fat node").

The recording keeps one Versions per block, per hash and per request field, so the picture
of any step is a binary search per value read, and memory grows with what changed, never with
the number of steps the value stayed the same.
"""
from array import array
from bisect import bisect_right
from typing import Any


class Versions:
    __slots__ = ("steps", "values")

    def __init__(self):
        self.steps = array("q")
        self.values: list = []

    def set(self, step: int, value: Any):
        if self.values and self.values[-1] == value:
            return
        if self.steps and self.steps[-1] == step:
            self.values[-1] = value  # changed again in the same step: only the step's end counts
            if len(self.values) > 1 and self.values[-2] == value:
                self.steps.pop()
                self.values.pop()
            return
        self.steps.append(step)
        self.values.append(value)

    def at(self, step: int, default: Any = None) -> Any:
        steps = self.steps
        if steps and steps[-1] <= step:  # the latest version: the common case when following the live end
            return self.values[-1]
        i = bisect_right(steps, step) - 1
        return self.values[i] if i >= 0 else default

    @property
    def last(self) -> Any:
        return self.values[-1] if self.values else None

    @property
    def last_step(self) -> int:
        return self.steps[-1] if self.steps else -1

    def forget_before(self, step: int):
        """Drop what no step >= `step` can read: every version but the one current at `step`."""
        i = bisect_right(self.steps, step) - 1
        if i > 0:
            del self.steps[:i]
            del self.values[:i]
