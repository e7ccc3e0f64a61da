"""steps_table: a whole run predicted row by row, checked cell by cell against the engine, the first
wrong cell diagnosed from the step's own events. The premise (the engine's row) is asserted first."""
import pytest

from blockviz import exercises
from blockviz.exercises.sets import CAPSTONE, SETS
from blockviz.exercises.kinds import KINDS

EX = exercises.make("steps_table", **CAPSTONE)
ROWS = EX.answer_text("en").splitlines()


def test_the_capstone_run_has_what_the_lesson_promises():
    steps = EX.solved.facts["steps"]
    assert any(s.shared for s in steps), "a hit on a used block (the shared prefix)"
    assert any(s.preempted for s in steps), "a preemption"
    assert any(s.appended for s in steps), "a decode that crosses a block boundary"
    assert any(s.revived for s in steps), "a return that re-hits its own freed blocks"
    assert any(s.refused for s in steps), "a request refused for want of free blocks"
    built = EX.solved.facts["built"]
    assert not built.sim.scheduler.waiting and not built.sim.scheduler.running  # the run ends


def with_row(step: int, row: str) -> str:
    rows = list(ROWS)
    rows[step - 1] = row
    return "\n".join(rows)


def step_of(predicate) -> int:
    return next(s.step for s in EX.solved.facts["steps"] if predicate(s))


def cells(step: int, runs=None, allocated=None, hits=None, freed=None) -> str:
    s = EX.solved.facts["steps"][step - 1]
    runs = " ".join(s.runs) if runs is None else runs
    values = [s.allocated if allocated is None else allocated, s.hits if hits is None else hits,
              s.freed if freed is None else freed]
    return f"{step} | {runs} | " + " | ".join(map(str, values))


def diagnosed(answer: str, name: str | None, step: int, words: str):
    for lang in ("en", "zh"):
        result = EX.check(answer, lang)
        assert not result.correct and not result.malformed, result
        assert result.misconception == name, result
        assert f"{step}" in result.message
    assert words in EX.check(answer, "en").message
    return EX.check(answer, "en").message


def test_each_mistake_is_named_at_its_cell():
    share = step_of(lambda s: s.shared)
    preempt = step_of(lambda s: s.preempted)
    refused = step_of(lambda s: s.refused)
    back = step_of(lambda s: s.revived)
    s = EX.solved.facts["steps"]
    victim = s[preempt - 1].preempted[0]
    diagnosed(with_row(preempt, cells(preempt, runs=" ".join(sorted(s[preempt - 1].runs + [victim])))),
              "preempted_runs", preempt, "preempts the tail")
    diagnosed(with_row(preempt, cells(preempt, allocated=s[preempt - 1].allocated - s[preempt - 1].appended)),
              "decode_boundary", preempt, "may_append")
    diagnosed(with_row(preempt, cells(preempt, freed=s[preempt - 1].released)), "release_frees_shared", preempt,
              "ref_count reaches 0")
    diagnosed(with_row(preempt, cells(preempt, freed=0)), "preemption_keeps_blocks", preempt, "deallocate")
    label = next(iter(s[refused - 1].refused))
    diagnosed(with_row(refused, cells(refused, runs=" ".join(sorted(s[refused - 1].runs + [label])))),
              "admitted_without_room", refused, "can_allocate returns -1")
    diagnosed(with_row(back, cells(back, hits=s[back - 1].shared)), "free_is_miss", back, "hit on a free block")
    diagnosed(with_row(back, cells(back, allocated=s[back - 1].allocated + s[back - 1].revived)),
              "revive_is_allocate", back, "revived block")
    decoder = next(label for label in s[share - 1].before if label not in s[share - 1].runs)
    diagnosed(with_row(share, cells(share, runs=" ".join(sorted(s[share - 1].runs + [decoder])))),
              "prefill_with_decode", share, "all prefill or all decode")


def test_only_the_first_wrong_cell_is_diagnosed_and_nothing_reveals_the_answer():
    first, later = 2, len(ROWS)
    answer = with_row(first, cells(first, hits=0)).splitlines()
    answer[later - 1] = cells(later, freed=99)
    message = EX.check("\n".join(answer), "en").message
    assert f"step {first}" in message and f"step {later}" not in message
    for text in (EX.prompt_in("en"), EX.prompt_in("zh"), EX.hint("en"), EX.hint("zh"), message):
        assert EX.answer_text("en") not in text and ROWS[1] not in text


@pytest.mark.parametrize("write", [
    lambda rows: "\n".join(rows),
    lambda rows: "\n".join(r.split(" | ", 1)[1] for r in rows),                    # without step numbers
    lambda rows: " / ".join(rows),                                                  # one line (the terminal)
    lambda rows: "| step | who | alloc | hits | freed |\n|---|---|---|---|---|\n" + "\n".join(f"| {r} |" for r in rows),
    lambda rows: "\n".join(r.replace(" | ", "｜").replace("A B", "A、B") for r in rows),   # a Chinese keyboard
    lambda rows: "\n".join(r.replace(" | ", "\t") for r in rows),                   # pasted from a spreadsheet
    lambda rows: "\n".join(r.replace("A B", "b, a") for r in rows),                 # any order, any case
])
def test_a_table_in_any_reasonable_notation(write):
    assert EX.check(write(ROWS)).correct


def test_malformed_tables_say_where():
    assert "Expected 8 rows" in EX.check("\n".join(ROWS[:-1])).message or len(ROWS) != 8
    assert EX.check("\n".join(ROWS[:-1])).malformed
    bad = with_row(3, "3 | A Z | 0 | 0 | 0")
    assert "Step 3, who runs" in EX.check(bad).message and "“Z”" in EX.check(bad).message
    assert "第 3 步，释放的块数" in EX.check(with_row(3, "3 | A B | 0 | 0 | 几个"), "zh").message
    assert "numbered" in EX.check(with_row(3, "5 | A B | 0 | 0 | 0")).message


def test_the_widget_gives_a_table_room():
    widget = EX.widget()
    assert widget.answer.rows == len(ROWS) + 1 and "|" in widget.answer.placeholder
    widget.answer.value = "\n".join(ROWS)
    assert widget.check().correct


def test_generated_runs_are_small_whole_runs_with_a_hit():
    for seed in range(8):
        ex = exercises.make("steps_table", seed)
        steps = ex.solved.facts["steps"]
        assert 1 <= len(steps) <= 16 and any(s.hits for s in steps), ex.id
        assert ex.check(ex.answer_text("zh"), "zh").correct


def test_the_review_set_interleaves_lessons_one_to_seven():
    lessons = [KINDS[item.kind].lesson for item in SETS["lesson12"].items]
    assert set(lessons) == set(range(1, 8))
    assert all(a != b for a, b in zip(lessons, lessons[1:]))
    assert {item.kind for item in SETS["lesson12"].items} == {k for k, kind in KINDS.items() if 1 <= kind.lesson <= 7}


def test_the_terminal_reads_a_table_until_an_empty_line():
    from blockviz.commands.exercise import practise
    typed = iter(ROWS + [""])
    out = []
    assert practise(EX, "en", read=lambda _: next(typed), write=out.append) == "correct"
    assert any("empty line" in line for line in out)
    piped = iter(ROWS)  # no empty line: the end of the input checks the table

    def read(_):
        try:
            return next(piped)
        except StopIteration:
            raise EOFError from None
    assert practise(EX, "en", read=read, write=out.append) == "correct"


def test_a_sheet_sets_a_table_answer_as_a_block():
    from blockviz.exercises.sheet import render_sheet
    sheet = render_sheet([EX], "zh")
    assert f"```\n{EX.answer_text('zh')}\n```" in sheet
