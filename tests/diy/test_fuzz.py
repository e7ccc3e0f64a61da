"""Whatever a learner writes, check() answers with a report and never crashes: every single-line
change of every engine method (a line replaced by `pass`, a comparison flipped) is reported, for the
whole engine and for lesson b0's paging stage (beside the engine with its cache left out)."""
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from blockviz.diy import METHODS, check
from blockviz.diy.stages import stage_named
from blockviz.diy.mutants import source, mutant

FLIPS = [("==", "!="), ("!=", "=="), (">=", "<"), ("< ", ">= "), ("+= 1", "-= 1"), ("-= 1", "+= 1"),
         ("popleft()", "pop()"), ("- 1", "+ 1"), (" + ", " - ")]


def changes(method: str) -> list[tuple[str, str]]:
    body = source(method).splitlines()[1:]  # not the def line
    found = [(line.strip(), "pass") for line in body if line.strip() and not line.strip().startswith("#")]
    found += [(line.strip(), line.strip().replace(a, b, 1)) for line in body for a, b in FLIPS if a in line]
    return found


CHANGES = [(m, old, new) for m in METHODS for old, new in changes(m)]
# the whole engine's methods (stage None), and lesson b0's beside the engine with its cache left out
STAGE_CHANGES = {None: CHANGES,
                 "paging": [(m, old, new) for m in stage_named("paging").methods for old, new in changes(m)]}


@pytest.mark.parametrize("stage", list(STAGE_CHANGES))
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 1000))
def test_any_one_line_change_is_reported_never_raised(stage, data, seed):
    method, old, new = data.draw(st.sampled_from(STAGE_CHANGES[stage]))
    try:
        cls = mutant("Changed", method, old, new)
    except SyntaxError:
        return  # `pass` where a block needs more than it: not code a learner can run
    report = check(cls, stage, workloads=3, seed=seed)
    assert report.written == (method,)
    html = report.html()
    assert html.startswith('<div class="bv-build" data-passed="')
    if not report.passed:
        assert report.step is not None and (report.fault is not None or report.fields)
        assert html.count('data-view="pool"') + html.count("cannot be drawn") == 2


# Changes that cannot alter a correct run: an assert that always holds, a shortcut the loop takes anyway.
EQUIVALENT = {("_allocate_block", "assert block.ref_count == 0"), ("allocate", "assert not seq.block_table"),
              ("_deallocate_block", "assert self.blocks[block_id].ref_count == 0"),
              ("hash_blocks", "if start == end: return")}


def test_the_default_workloads_catch_every_one_line_change_that_matters():
    survivors = set()
    for method, old, new in CHANGES:
        try:
            cls = mutant("Changed", method, old, new)
        except SyntaxError:
            continue
        if check(cls).passed:
            survivors.add((method, old))
    assert survivors == EQUIVALENT
