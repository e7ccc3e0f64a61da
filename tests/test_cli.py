from blockviz.cli import main


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
