"""The learner's code failing: an exception is a difference at its step with its traceback, an
endless loop is cut, a half-written method is "not finished", never a crash of the check."""
import sys

from blockviz.diy import check
from blockviz.diy import limit
from blockviz.engine.block_manager import BlockManager


class RaisesInAllocate(BlockManager):
    def allocate(self, seq, num_cached_blocks):
        seq.block_table.append(self.free_block_ids[0])
        return {}[seq.seq_id]  # a KeyError, as a wrong map lookup gives


class LoopsForever(BlockManager):
    def can_append(self, seq):
        while True: pass  # noqa: E701  one line that never starts again: no line event ever cuts it


class HalfWritten(BlockManager):
    def deallocate(self, seq):
        for block_id in reversed(seq.block_table):
            self.blocks[block_id].ref_count -= 1
        raise NotImplementedError("then free the blocks")


class ClaimsEveryBlock(BlockManager):
    def can_allocate(self, seq):
        return seq.num_blocks - 1  # the engine's allocate then looks up hashes that are not there


def test_an_exception_is_reported_at_its_step_with_the_learners_line():
    report = check(RaisesInAllocate, "allocate")
    assert report.step == 1 and not report.passed
    fault = report.fault
    assert (fault.kind, fault.method) == ("raised", "allocate") and fault.message.startswith("KeyError")
    assert "return {}[seq.seq_id]" in fault.traceback and "scheduler.py" in fault.traceback
    assert "blockviz/diy" not in fault.traceback  # the checker's own frames say nothing to a learner
    assert "KeyError" in report.html() and "<pre" in report.html()


def test_an_endless_loop_is_cut(monkeypatch):
    monkeypatch.setattr(limit, "MAX_INSTRUCTIONS", 20_000)
    before = sys.gettrace()
    report = check(LoopsForever, "decode")
    assert report.fault.kind == "too_long" and report.fault.method == "can_append"
    assert "20000" in str(report) and "while True: pass" in report.fault.traceback
    assert report.step >= 1 and report.mine is not None
    assert sys.gettrace() is before  # whatever traced before traces again


def test_a_half_written_method_is_not_finished():
    report = check(HalfWritten, "deallocate")
    assert report.fault.kind == "not_written" and report.fault.method == "deallocate"
    assert "NotImplementedError" in str(report)


def test_the_engines_code_failing_on_the_learners_state_is_reported():
    report = check(ClaimsEveryBlock, "allocate")
    assert report.fault.kind == "engine_raised" and report.fault.method == "allocate"
    assert "KeyError" in report.fault.message


def test_a_broken_init_is_reported_at_step_zero():
    class Broken(BlockManager):
        def __init__(self, num_blocks, block_size):
            super().__init__(num_blocks + 1, block_size)

        deallocate = BlockManager.deallocate  # something of the stage written, so the check runs

    report = check(Broken, "deallocate")
    assert report.step == 0 and report.fault.kind == "engine_raised"


class AlwaysRoom(BlockManager):
    def can_append(self, seq):
        return True  # then the engine's may_append pops an empty free queue


def test_a_call_that_returned_something_else_before_the_failure_is_named_first():
    report = check(AlwaysRoom, "decode")
    assert report.fault.kind == "engine_raised" and "IndexError" in report.fault.message
    assert report.fields == ("call",) and report.divergence.differences[0].mine is True
    lines = report.lines()
    assert lines.index(next(line for line in lines if "can_append(" in line)) < \
        lines.index(next(line for line in lines if "IndexError" in line))
    assert "where it stopped" in report.html()
