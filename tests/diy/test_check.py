"""check(): the engine's own methods, written out as a learner would, pass on every workload; known
wrong versions are caught at the first step where the engine's recording shows what they get wrong."""
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from blockviz.diy import METHODS, STAGES, check, workload
from blockviz.diy.mutants import source
from blockviz.workload import play
from blockviz.engine.block_manager import BlockManager
from tests.diy.wrong import WRONG

SEEDS = st.integers(0, 100_000)


def engine_written_out(methods=METHODS) -> type:
    """A subclass whose methods are the engine's source, compiled again: learner code, traced as such."""
    namespace = {}
    body = "\n".join(textwrap.indent(source(m), "    ") for m in methods)
    exec("from blockviz.engine.block_manager import BlockManager\nfrom blockviz.engine.sequence import Sequence\n"
         f"class Written(BlockManager):\n{body}", namespace)
    return namespace["Written"]


WRITTEN = engine_written_out()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SEEDS)
def test_the_engines_own_methods_pass(seed):
    report = check(WRITTEN, workloads=1, seed=seed)
    assert report.passed, str(report)
    assert report.missing == () and report.workloads == 1 and report.steps > 0


@pytest.mark.parametrize("stage", [s.name for s in STAGES])
def test_each_stage_alone_passes_with_the_engines_methods(stage):
    report = check(engine_written_out(next(s for s in STAGES if s.name == stage).methods), stage, workloads=20)
    assert report.passed, str(report)
    assert set(report.written) == set(next(s for s in STAGES if s.name == stage).methods)


def first_exercised(seed: int, exercises) -> int | None:
    w = workload(seed)
    sim = play(w.workload).engine
    seqs = {}
    return next((f.step for f in sim.frames[1:] if exercises(f, seqs)), None)


@pytest.mark.parametrize("name", WRONG)
def test_a_known_wrong_version_is_caught(name):
    wrong = WRONG[name]
    report = check(wrong.cls, wrong.stage, workloads=40)
    assert not report.passed and report.fault is None
    assert set(wrong.fields) & set(report.fields), str(report)
    assert report.mine is not None and report.engine is not None
    assert len(report.mine.frames) == len(report.engine.frames) == report.step + 1  # both pictures, up to it


@pytest.mark.parametrize("name", WRONG)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS)
def test_a_wrong_version_differs_exactly_where_the_engine_first_exercises_it(name, seed):
    wrong = WRONG[name]
    w = workload(seed)
    if w.hash_values is not None:
        return  # the oracle records the engine with its real hash
    report = check(wrong.cls, wrong.stage, workloads=1, seed=seed)
    assert report.step == first_exercised(seed, wrong.first), str(report)
    if report.step is not None:
        assert set(wrong.fields) & set(report.fields), str(report)


def test_a_stub_is_not_written_yet_and_the_rest_is_checked():
    class Learner(BlockManager):
        def can_allocate(self, seq):
            raise NotImplementedError  # write it here

        _allocate_block = WRITTEN._allocate_block

    report = check(Learner, "allocate", workloads=5)
    assert report.missing == ("can_allocate", "allocate") and report.written == ("_allocate_block",)
    assert report.passed
    assert "can_allocate" in str(report) and "allocate" in str(report)


def test_nothing_written_is_reported_not_failed():
    class Learner(BlockManager):
        def hash_blocks(self, seq):
            """Register the blocks this step filled."""
            raise NotImplementedError("write hash_blocks")

    report = check(Learner, "hash_blocks")
    assert not report.passed and report.divergence is None and report.written == ()
    assert report.html().startswith('<div class="bv-build" data-passed="none"')


def test_a_class_with_the_same_interface_is_checked_too():
    namespace = {}
    body = "\n".join(textwrap.indent(source(m), "    ") for m in ("__init__", "deallocate"))
    exec(f"from blockviz.engine.block_manager import Block\nfrom blockviz.engine.sequence import Sequence\n"
         f"from collections import deque\nclass Mine:\n{body}", namespace)
    assert not issubclass(namespace["Mine"], BlockManager)
    assert check(namespace["Mine"], "deallocate", workloads=10).passed


def test_arguments_are_checked():
    with pytest.raises(TypeError, match="the class itself"):
        check(BlockManager(4, 2))
    with pytest.raises(ValueError, match="unknown stage"):
        check(BlockManager, "free")
    with pytest.raises(ValueError, match="workloads"):
        check(BlockManager, workloads=0)
