"""The build-it-yourself track: the learner writes BlockManager methods (lessons b0_... to b4_...)
and check() runs them against the engine's, step by step, on seeded random workloads.

    stages.py         which methods each stage (and lesson) covers, and the engine each runs beside
    cacheless.py      that engine for lesson b0: nano-vllm's BlockManager with its prefix cache left out
    paging.py         lesson b0's answer: a paged allocator without a cache
    workloads.py      the seeded random workloads (blockviz.workload Workloads, with their seed and hash)
    assemble.py       the class a check runs: the learner's methods of the stage, the engine's for the rest
    limit.py          an instruction limit per engine step that cuts an endless loop in the learner's code
    child.py          the learner's side in a forked child: a wall clock, a memory limit, plain values back
    plain_values.py   what the child sends: builtins and the checker's records, anything else as its repr
    position.py       where the learner's code is (step, method), readable after the child is killed
    faults.py         what stops the learner's code (not written, raised, too long), with its traceback
    checked_engine.py one engine of a check: a Simulator around a given BlockManager class
    state.py          the state compared after each step, as plain values
    compare.py        the differences between two engines' steps (pure)
    lockstep.py       both engines on the workloads until their first difference (the engine's here)
    pictures.py       each side's picture after each step, a Timeline the views draw
    culprit.py        the method at fault, from the call log: every call with the pool it found and left
    describe.py       a difference and a workload in words (en/zh)
    report.py         the report: words, where the learner's code failed, both pools side by side
    check.py          check(MyBlockManager, "allocate")
    collect.py        the learner's methods from the saved notebooks, in one class (lesson b4's last cell)
    mutants.py        the engine's methods as text, and "break it" mutants with one line changed
"""
from blockviz.diy.check import check
from blockviz.diy.report import Report
from blockviz.diy.stages import METHODS, STAGES, WHOLE, Stage, stage_named
from blockviz.diy.workloads import SeededWorkload, workload

__all__ = ["METHODS", "STAGES", "Report", "SeededWorkload", "Stage", "check", "WHOLE", "stage_named", "workload"]
