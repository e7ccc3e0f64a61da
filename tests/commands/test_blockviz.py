import pytest

from blockviz.commands import main


def test_simulate_prints_the_step_table(capsys, tmp_path):
    trace = tmp_path / "t.json"
    assert main(["simulate", "seed004", "--trace", str(trace)]) == 0
    out = capsys.readouterr().out
    assert "step  phase" in out and "prefill  A:10" in out
    assert trace.exists()


def test_simulate_lists_presets(capsys):
    assert main(["simulate", "--list"]) == 0
    assert "nano219_duplicate_blocks" in capsys.readouterr().out


def test_simulate_unknown_scenario_is_a_clear_error(capsys):
    assert main(["simulate", "no-such-thing"]) == 2
    assert "no scenario file" in capsys.readouterr().err


@pytest.mark.parametrize("port", ["70000", "0", "-1", "http"])
def test_demo_port_out_of_range_is_a_usage_error(capsys, port):
    with pytest.raises(SystemExit) as e:
        main(["demo", "--port", port, "--no-browser"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "--port" in err and ("1..65535" in err or "not a port number" in err) and "Traceback" not in err


def test_demo_policy_unknown_is_a_one_line_error_naming_the_policies(capsys, tmp_path):
    from tests.engine.tiny_model import write_tiny_model
    model = write_tiny_model(tmp_path / "tiny")
    assert main(["demo", "--model", str(model), "--device", "cpu", "--no-browser", "--policy", "radix"]) == 2
    err = capsys.readouterr().err
    assert err == "blockviz demo: unknown policy 'radix'; choose one of nano-vllm, vllm, sglang\n"


@pytest.mark.parametrize("args, policy", [([], "nano-vllm"), (["--policy", "sglang"], "sglang"),
                                          (["--policy", "vllm"], "vllm")])
def test_demo_policy_option_reaches_the_settings(monkeypatch, tmp_path, args, policy):
    import blockviz.demo.server as server
    from tests.engine.tiny_model import write_tiny_model
    model = write_tiny_model(tmp_path / "tiny")
    served = []
    monkeypatch.setattr(server, "serve", lambda settings, **kw: served.append(settings) or 0)
    assert main(["demo", "--model", str(model), "--device", "cpu", "--no-browser", *args]) == 0
    assert served[0].policy == policy


def test_demo_help_lists_the_policies(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")   # one line per option: argparse would break "nano-vllm" at its hyphen
    with pytest.raises(SystemExit):
        main(["demo", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--policy NAME" in out and "nano-vllm, vllm, sglang (default nano-vllm)" in out


@pytest.mark.parametrize("exercise_id", ["slot:[1,2]", "slot:{", 'slot:{"block_size": true}', "slot-x", "nope-3"])
def test_exercise_with_a_bad_id_is_a_clear_error(capsys, exercise_id):
    assert main(["exercise", exercise_id]) == 2
    err = capsys.readouterr().err
    assert err.startswith("blockviz exercise: ") and "Traceback" not in err


def test_simulate_bad_scenario_file_is_a_clear_error(capsys, tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('title = "t"\nblock_size = true\nnum_blocks = 8\n[[requests]]\nprompt = "ab"\n', encoding="utf-8")
    assert main(["simulate", str(path)]) == 2
    assert "block_size must be a whole number" in capsys.readouterr().err


def test_simulate_trace_to_an_unwritable_place_is_a_clear_error(capsys, tmp_path):
    assert main(["simulate", "seed004", "--trace", str(tmp_path / "no" / "such" / "dir" / "t.json")]) == 2
    err = capsys.readouterr().err
    assert "cannot write the trace" in err and "Traceback" not in err


def test_simulate_missing_file_says_how_to_start_one_from_a_preset(capsys, tmp_path):
    assert main(["simulate", str(tmp_path / "my.toml")]) == 2
    err = capsys.readouterr().err
    assert "no scenario file" in err and "blockviz simulate --print seed004 > my.toml" in err


def test_simulate_print_writes_a_preset_that_loads_as_it_is(capsys, tmp_path):
    assert main(["simulate", "--print", "preempt_rehit"]) == 0
    copy = tmp_path / "mine.toml"
    copy.write_text(capsys.readouterr().out, encoding="utf-8")
    assert main(["simulate", str(copy)]) == 0
    assert main(["simulate", "--print", "nope"]) == 2 and "no preset 'nope'" in capsys.readouterr().err


def test_simulate_trace_is_json_lines_and_a_json_name_gets_a_note(capsys, tmp_path):
    assert main(["simulate", "seed004", "--trace", str(tmp_path / "t.json")]) == 0
    captured = capsys.readouterr()
    assert "JSON Lines" in captured.out and ".jsonl" in captured.err
    assert main(["simulate", "seed004", "--trace", str(tmp_path / "t.jsonl")]) == 0
    assert ".jsonl" not in capsys.readouterr().err
