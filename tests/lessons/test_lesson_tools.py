import json
from types import SimpleNamespace

import pytest

from blockviz import Simulator
from blockviz.engine.block_manager import BlockManager
from blockviz.lesson_tools import (REPO_DIR, Exercise, Lesson, capture, compress, def_lines, line_of,
                                   load_self_assessment, model_inputs, parse_answer, record_calls,
                                   save_self_assessment, step_rows)
from blockviz.scenarios import load_scenario, presets


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


@pytest.mark.parametrize("name", presets())
def test_step_rows_follow_the_slot_formula(name):
    """step_rows runs the model runner's own prepare_* methods; check them against the formula, step by step
    (prefills with cached prefixes, chunks, decode, requests finishing or preempted in the step)."""
    sim = load_scenario(name).run()
    B = sim.config.kvcache_block_size
    for frame in sim.frames[1:]:
        rows = step_rows(sim, frame.step)
        assert [r.row for r in rows] == list(range(len(rows)))
        expected = []
        for seq_id, (start, count) in frame.snapshot.scheduled.items():
            seq = frame.snapshot.seqs[seq_id]
            positions = range(start, start + count)
            expected += [(seq.label, t, seq.token_ids[t]) for t in positions]
        assert [(r.label, r.position, r.token_id) for r in rows] == expected
        for r in rows:
            assert r.slot == r.physical * B + r.offset and (r.logical, r.offset) == divmod(r.position, B)


def test_step_rows_equal_what_the_live_model_runner_built():
    from blockviz.llm import LLM
    from blockviz.sampling_params import SamplingParams
    llm = LLM(kvcache_block_size=4, num_kvcache_blocks=16, device="cpu")
    params = SamplingParams(temperature=0, max_tokens=5)
    llm.add_request("It is a truth universally acknowledged", params)
    with model_inputs(llm.model_runner) as log, capture(llm.model_runner, "run_model") as logits:
        llm.step()
        llm.add_request("It is a truth universally known", params)
        llm.run()
    assert not {"prepare_prefill", "prepare_decode", "run_model"} & set(vars(llm.model_runner))
    assert len(log) == len(logits) == llm.num_steps
    assert [len(x) for x in logits] == [len(f.snapshot.scheduled) for f in llm.frames[1:]]
    for step, inputs in enumerate(log, start=1):
        rows = step_rows(llm, step)
        assert [r.slot for r in rows] == inputs["slot_mapping"]
        assert [r.position for r in rows] == inputs["positions"]
        assert [r.token_id for r in rows] == inputs["input_ids"]
        assert inputs["is_prefill"] == llm.snapshot(step).is_prefill


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


def test_show_puts_live_views_under_a_player_at_the_step():
    from blockviz.views.player import Player
    from blockviz.views.widgets import ChainView, MappingView
    sim = load_scenario("seed004").run()
    box = Lesson("01_token_to_slot", "zh").show(sim, "mapping", "chain", label="B", step=2)
    player, mapping, chain = box.children
    assert isinstance(player, Player) and isinstance(mapping, MappingView) and isinstance(chain, ChainView)
    assert player.step == mapping.step == chain.step == 2 and mapping.seq_id == chain.seq_id == next(
        i for i, label in sim.labels.items() if label == "B")
    sim.seek(1)  # a later cell moving the cursor leaves the picture beside its text
    assert 'data-step="2"' in mapping.svg and not player.follow
    player._on_msg(player, {"cmd": "back"}, [])  # the player moves its views
    assert 'data-step="1"' in mapping.svg and chain.step == 1
