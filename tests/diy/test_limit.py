"""The instruction limit: only the learner's code is traced, an endless loop is cut, tracers come back."""
import sys

import pytest

from blockviz.diy.faults import Stop
from blockviz.diy.limit import LineLimit, codes_of
from blockviz.engine.block_manager import BlockManager


class Learner(BlockManager):
    def can_append(self, seq):
        while True: pass  # noqa: E701

    def helper(self):
        return [i for i in range(3)]


def test_codes_are_the_learners_own_with_nested_code():
    codes = codes_of(Learner, BlockManager)
    assert Learner.can_append.__code__ in codes and Learner.helper.__code__ in codes
    assert BlockManager.allocate.__code__ not in codes
    assert codes_of(BlockManager, BlockManager) == set()


def test_an_endless_one_line_loop_is_cut_and_the_tracer_restored():
    def previous(frame, event, arg):
        return None

    sys.settrace(previous)
    try:
        limit = LineLimit(codes_of(Learner, BlockManager), max_instructions=5_000)
        with pytest.raises(Stop) as stopped:
            with limit.step():
                Learner(2, 2).can_append(None)
        assert sys.gettrace() is previous
    finally:
        sys.settrace(None)
    fault = stopped.value.fault
    assert fault.kind == "too_long" and fault.method == "can_append" and fault.limit == 5_000
    assert "while True: pass" in fault.traceback


def test_the_engines_code_is_not_counted():
    limit = LineLimit(codes_of(Learner, BlockManager), max_instructions=10)
    with limit.step():
        bm = Learner(64, 2)
        for _ in range(50):
            bm._allocate_block()
    assert limit.count == 0
