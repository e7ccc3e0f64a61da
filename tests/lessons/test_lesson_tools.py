import json
from types import SimpleNamespace

import pytest

from blockviz import Simulator
from blockviz.engine.block_manager import BlockManager
from blockviz.lesson_tools import (REPO_DIR, Exercise, Lesson, compress, decode_slot, def_lines, line_of,
                                   load_self_assessment, parse_answer, prefill_slot_mapping, record_calls,
                                   save_self_assessment, step_rows)
from blockviz.scenarios import load_scenario


def test_def_lines_finds_the_method():
    first, last = def_lines("blockviz/engine/block_manager.py", "BlockManager.can_allocate")
    lines = (REPO_DIR / "blockviz/engine/block_manager.py").read_text().splitlines()
    assert lines[first - 1].strip().startswith("def can_allocate(")
    assert "return num_cached_blocks" in lines[last - 1]
    first, _ = def_lines("blockviz/engine/block_manager.py", "BlockManager.compute_hash")
    assert lines[first - 1].strip() == "@classmethod"  # decorators belong to the def
    n = line_of("blockviz/engine/block_manager.py", "BlockManager.can_allocate", "range(seq.num_blocks - 1)")
    assert "for i in range(seq.num_blocks - 1)" in lines[n - 1]
    with pytest.raises(LookupError):
        def_lines("blockviz/engine/block_manager.py", "BlockManager.nope")


def test_seed004_slot():
    sim = load_scenario("seed004").run()
    rows = step_rows(sim, 1)
    assert [r.slot for r in rows if r.label == "A"][6] == 10
    assert rows[6].physical == 2 and rows[6].offset == 2 and rows[6].logical == 1


def test_slot_mapping_is_the_model_runners():
    torch = pytest.importorskip("torch")
    model_runner = pytest.importorskip("blockviz.engine.model_runner")
    from blockviz.utils.context import get_context, reset_context
    from blockviz.engine.sequence import Sequence
    B = 4
    fake = SimpleNamespace(block_size=B, device=torch.device("cpu"))
    fake.prepare_block_tables = lambda seqs: model_runner.ModelRunner.prepare_block_tables(fake, seqs)
    for start, end, table in [(0, 10, [5, 2, 7]), (8, 10, [5, 2, 0]), (3, 7, [5, 2, 7]), (4, 8, [1, 3]), (8, 9, [4, 0, 6])]:
        seq = Sequence(list(range(end)), block_size=B)
        seq.block_table = list(table)
        seq.num_cached_tokens = start
        seq.num_scheduled_tokens = end - start
        model_runner.ModelRunner.prepare_prefill(fake, [seq])
        assert get_context().slot_mapping.tolist() == prefill_slot_mapping(table, B, start, end)
        reset_context()
        if len(table) == seq.num_blocks:  # a decoding request's table covers exactly its tokens
            model_runner.ModelRunner.prepare_decode(fake, [seq])
            assert get_context().slot_mapping.tolist() == [decode_slot(table, B, len(seq))]
            reset_context()


def test_self_assessment_is_local(tmp_path):
    path = save_self_assessment("01_token_to_slot", {"slot formula": "closed book"}, "zh", home=tmp_path)
    save_self_assessment("01_token_to_slot", {"slot formula": "with notes"}, home=tmp_path)
    assert path == tmp_path / "self_assessment.json"
    data = load_self_assessment(tmp_path)
    entries = data["lessons"]["01_token_to_slot"]
    assert [e["ratings"]["slot formula"] for e in entries] == ["closed book", "with notes"]
    assert json.loads(path.read_text())["lessons"]["01_token_to_slot"][0]["lang"] == "zh"


def test_exercise_feedback():
    lesson = Lesson("01_token_to_slot", "en")
    ex = Exercise(lesson, "q", "q", expected=[23, 8, 9, 10])
    assert ex.feedback("23, 8, 9, 10")[0] is True
    assert ex.feedback("[23, 8, 9, 10]")[0] is True
    assert ex.feedback((23, 8, 9, 10))[0] is True
    assert ex.feedback("3, 4, 5, 6")[0] is False
    assert ex.feedback("")[0] is None and ex.feedback(None)[0] is None
    assert parse_answer("{5: 2, 2: 2}") == {5: 2, 2: 2}
    assert parse_answer("Yes") == "yes"
    yes_no = Exercise(lesson, "q", "q", expected="no")
    assert yes_no.feedback("否")[0] is True and yes_no.feedback("No")[0] is True and yes_no.feedback("yes")[0] is False
    true_false = Exercise(lesson, "q", "q", expected="true")
    assert true_false.feedback("True")[0] is True and true_false.feedback("是")[0] is True
    assert true_false.feedback("False")[0] is False


def test_record_calls_restores_the_methods():
    sim = Simulator(num_blocks=4, block_size=4)
    sim.add("abcdef", max_tokens=3)
    bm = sim.scheduler.block_manager
    with record_calls(bm, ["can_allocate", "allocate", "can_append", "may_append", "hash_blocks"]) as log:
        sim.run()
    assert log[:2] == ["can_allocate", "allocate"] and "may_append" in log
    assert "can_allocate" not in vars(bm)
    assert compress(["a", "a", "b", "a"]) == [("a", 2), ("b", 1), ("a", 1)]


def test_lesson_rejects_unknown_language():
    with pytest.raises(ValueError):
        Lesson("00_start_here", "fr")


def test_self_assessment_widget_saves_on_click_only(tmp_path, monkeypatch):
    monkeypatch.setenv("BLOCKVIZ_HOME", str(tmp_path))
    box = Lesson("02_block_lifecycle", "zh").self_assessment([("skill one", "技能一"), ("skill two", "技能二")])
    assert not (tmp_path / "self_assessment.json").exists()
    box.toggles[0].value = "closed_book"
    box.save_button.click()
    entry = load_self_assessment(tmp_path)["lessons"]["02_block_lifecycle"][-1]
    assert entry["lang"] == "zh"
    assert entry["ratings"] == {"skill one": "closed_book", "skill two": ""}
