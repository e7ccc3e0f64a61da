"""The learner's code runs in a child: whatever it does (loop where the instruction count does not
reach, sleep, spin in C, exit, crash, patch the checker or the engine), check() returns a report that
says what happened and where, and the kernel's checker and engine are untouched for the next check."""
import collections
import itertools
import os
import sys
import time

import pytest

from blockviz.diy import child, check, limit, lockstep
from blockviz.engine.block_manager import BlockManager
from tests.diy.test_check import WRITTEN
from tests.diy.wrong import WRONG


@pytest.fixture(autouse=True)
def quick(monkeypatch):
    monkeypatch.setattr(child, "STEP_SECONDS", 0.5)
    monkeypatch.setattr(limit, "MAX_INSTRUCTIONS", 20_000)


def spin():  # a helper outside the class, as one from another notebook cell
    while True: pass  # noqa: E701


class CallsAHelper(BlockManager):
    def can_append(self, seq):
        spin()


class SwallowsTheCut(BlockManager):
    def can_append(self, seq):
        while True:
            try:
                while True: pass  # noqa: E701
            except:  # noqa: E722  the learner's bare except catches the checker's cut
                pass


class Sleeps(BlockManager):
    def can_append(self, seq):
        time.sleep(60)


class SpinsInC(BlockManager):
    def can_append(self, seq):
        collections.deque(itertools.count(), maxlen=0)


class TurnsTracingOff(BlockManager):
    def can_append(self, seq):
        sys.settrace(None)
        while True: pass  # noqa: E701


class Exits(BlockManager):
    def can_append(self, seq):
        sys.exit(3)


class Interrupts(BlockManager):
    def can_append(self, seq):
        raise KeyboardInterrupt


class EndsTheProcess(BlockManager):
    def can_append(self, seq):
        os._exit(3)


class Crashes(BlockManager):
    def can_append(self, seq):
        import ctypes
        ctypes.string_at(0)


class Greedy(BlockManager):
    def can_append(self, seq):
        return len(bytearray(1 << 30)) > 0


class LoopsInEq:
    def __eq__(self, other):
        while True: pass  # noqa: E701

    __hash__ = object.__hash__

    def __repr__(self):
        return "LoopsInEq()"


class ReturnsALoopingEq(BlockManager):
    def can_append(self, seq):
        return LoopsInEq()


def test_a_helper_outside_the_class_is_cut_by_the_instruction_count():
    report = check(CallsAHelper, "decode", workloads=1)
    assert (report.fault.kind, report.fault.method) == ("too_long", "can_append")
    assert "spin" in report.fault.traceback


@pytest.mark.parametrize("cls, line", [(SwallowsTheCut, "while True: pass"), (Sleeps, "time.sleep(60)"),
                                       (SpinsInC, "collections.deque"), (TurnsTracingOff, "while True: pass")])
def test_what_the_count_cannot_cut_the_wall_clock_stops(cls, line):
    started = time.monotonic()
    report = check(cls, "decode", workloads=1)
    assert time.monotonic() - started < 10
    fault = report.fault
    assert (fault.kind, fault.method) == ("timeout", "can_append") and report.step >= 1
    assert line in fault.traceback  # the stack the child's watchdog wrote just before it was stopped
    text = str(report)
    assert "did not return within 0 s" not in text and "can_append" in text and f"step {report.step}" in text
    assert "没有在" in "\n".join(report.lines("zh"))


@pytest.mark.parametrize("cls, message", [(Exits, "SystemExit: 3"), (Interrupts, "KeyboardInterrupt")])
def test_exit_and_interrupt_raised_by_the_learner_are_its_exceptions(cls, message):
    report = check(cls, "decode", workloads=1)
    assert (report.fault.kind, report.fault.method, report.fault.message) == ("raised", "can_append", message)


@pytest.mark.parametrize("cls, message", [(EndsTheProcess, "status 3"), (Crashes, "SIGSEGV")])
def test_ending_or_crashing_the_process_is_reported(cls, message):
    report = check(cls, "decode", workloads=1)
    assert (report.fault.kind, report.fault.method) == ("ended", "can_append") and message in report.fault.message
    assert "notebook is untouched" in str(report)


def test_the_child_has_a_memory_limit(monkeypatch):
    monkeypatch.setattr(child, "MEMORY_BYTES", 256 << 20)
    report = check(Greedy, "decode", workloads=1)
    assert (report.fault.kind, report.fault.message) == ("raised", "MemoryError")


def test_a_value_whose_eq_loops_is_compared_as_text():
    report = check(ReturnsALoopingEq, "decode", workloads=1)
    assert report.fields == ("call",) and str(report.divergence.differences[0].mine) == "LoopsInEq()"


class Patches(BlockManager):
    def __init__(self, num_blocks, block_size):
        super().__init__(num_blocks, block_size)
        lockstep.differences = lambda mine, engine: []  # the learner's code tries to fool the checker
        BlockManager.hash_blocks = lambda self, seq: None

    def can_allocate(self, seq):
        return False  # wrong: nothing is ever admitted


def test_patches_made_by_learner_code_die_with_the_child():
    differences, hash_blocks = lockstep.differences, BlockManager.hash_blocks
    report = check(Patches, "allocate", workloads=1)
    assert not report.passed and report.fields
    assert lockstep.differences is differences and BlockManager.hash_blocks is hash_blocks
    assert check(WRONG["forgets ref_count on a hit"].cls, "allocate").fields[0] == "ref_count"


def test_the_kernel_checks_again_after_every_kind_of_failure():
    before = sys.gettrace()
    for cls in (SwallowsTheCut, EndsTheProcess, Patches):
        check(cls, "decode", workloads=1)
    assert sys.gettrace() is before and check(WRITTEN, workloads=3).passed


def test_the_learners_print_shows_in_the_notebook(capsys):
    class Prints(BlockManager):
        def can_append(self, seq):
            print("here", seq.seq_id)
            return super().can_append(seq)

    check(Prints, "decode", workloads=1)
    assert "here" in capsys.readouterr().out
