"""differences(): pure, what the scheduler was told first, every field named by the engine's attribute."""
from dataclasses import replace

from blockviz.diy.compare import StepResult, differences
from blockviz.diy.state import BlockValues, RequestState, State


def outcome(**changes) -> StepResult:
    state = State((BlockValues(1, 7, (1, 2)), BlockValues(0, -1, ())), (1,), frozenset({0}), {7: 0},
                  {"A": RequestState("running", (0,), 2, 3)}, (), ("A",))
    base = StepResult((("can_allocate", "A", (), 0), ("allocate", "A", (0,), None)), (True, (("A", 2),)), None, state)
    state_changes = {k: v for k, v in changes.items() if k in State.__dataclass_fields__}
    other = {k: v for k, v in changes.items() if k not in State.__dataclass_fields__}
    return replace(base, state=replace(state, **state_changes), **other)


def test_the_same_step_has_no_differences():
    assert differences(outcome(), outcome()) == []


def test_each_field_is_named():
    assert [d.field for d in differences(outcome(free_block_ids=(1, 0)), outcome())] == ["free_block_ids"]
    assert [d.field for d in differences(outcome(hash_to_block_id={}), outcome())] == ["hash_to_block_id"]
    blocks = (BlockValues(2, 7, (1, 2)), BlockValues(0, -1, ()))
    assert [(d.field, d.where) for d in differences(outcome(blocks=blocks), outcome())] == [("ref_count", 0)]


def test_a_call_that_returned_something_else_comes_first():
    calls = (("can_allocate", "A", (), 1), ("allocate", "A", (1,), None))
    found = differences(outcome(calls=calls, free_block_ids=()), outcome())
    assert [d.field for d in found] == ["call", "free_block_ids"]
    assert found[0].mine == 1 and found[0].engine == 0
