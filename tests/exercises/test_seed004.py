"""The seed004 scenario's examples (blockviz/scenarios/seed004.toml), answered by the engine."""
from blockviz import exercises
from blockviz.exercises.setups import build, full_order
from blockviz.slots import slot_of, step_slot_mapping
from blockviz.exercises.kinds.refs import SEED_004
from blockviz.exercises.sets import SEED_004_SLOTS


def test_issue_example_accepts_natural_formats():
    ex = exercises.make("slot_mapping", block_size=4, block_table=[5, 2, 7], positions=[3, 4, 5, 6])
    for answer in ["23, 8, 9, 10", "[23,8,9,10]", "23，8，9，10", "（23，8，9，10）", "【23，8，9，10】", [23, 8, 9, 10]]:
        assert ex.check(answer).correct, answer
    assert not ex.check("23, 8, 9, 11").correct


def test_seed004_slots_come_from_a_real_allocation():
    ex = exercises.make("slot_mapping", **SEED_004_SLOTS)
    assert ex.answer() == [23, 8, 9, 10]
    assert ex.solved.facts["table"] == [5, 2, 7]  # what the engine allocated
    assert "23" not in ex.prompt
    assert step_slot_mapping([5, 2, 7], 4, 3, 7) == [slot_of([5, 2, 7], 4, t) for t in range(3, 7)]


def test_seed004_free_queue_yields_5_2_7():
    assert full_order([5, 2, 7], 8) == [5, 2, 7, 0, 1, 3, 4, 6]
    built = build(SEED_004)
    assert built.seq("A").block_table == [5, 2, 7]


def test_seed004_ref_counts_after_b_hits_two_full_blocks():
    ex = exercises.make("ref_counts", **SEED_004)
    before = ex.solved.facts["before"].bm
    assert [before.blocks[b].ref_count for b in (5, 2, 7)] == [1, 1, 1]
    assert ex.answer() == [2, 2, 1]
    assert ex.check("2, 2, 1").correct
    assert ex.check("1, 1, 1").misconception == "no_share"
    assert "2, 2, 1" not in ex.prompt


def test_seed004_slot_of_t6_is_10():
    ex = exercises.make("slot", block_size=4, block_table=[5, 2, 7], num_tokens=10, position=6)
    assert ex.answer() == 10
    assert ex.check("10").correct
