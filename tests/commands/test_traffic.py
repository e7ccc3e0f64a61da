"""`blockviz traffic`: the table, the drawings, the same curve for any number of processes, clear errors."""
import json

import pytest

from blockviz import traffic
from blockviz.commands import main
from blockviz.traffic.curves import capacity_curve


def test_the_curve_is_the_same_for_any_number_of_processes():
    trace = traffic.load("synthetic").head(60)
    options = dict(block_size=32, tokens_per_id=32, arrivals="in-order")
    one = capacity_curve(trace, [20_000, 200_000], jobs=1, **options)
    two = capacity_curve(trace, [20_000, 200_000], jobs=2, **options)
    assert [(p.pool_tokens, p.cached_tokens, p.preemptions, p.steps) for p in one] == \
           [(p.pool_tokens, p.cached_tokens, p.preemptions, p.steps) for p in two]
    assert one[0].hit_rate <= one[1].hit_rate <= trace.theoretical_hit_rate(32)


def test_table_png_and_html(capsys, tmp_path):
    png, page = tmp_path / "c.png", tmp_path / "c.html"
    assert main(["traffic", "conversation", "--head", "40", "--pools", "2e4,2e5", "--block-size", "32",
                 "--tokens-per-id", "32", "--jobs", "1", "--no-progress", "--png", str(png), "--html", str(page)]) == 0
    out = capsys.readouterr().out
    assert "an infinite cache serves" in out and "200,000" in out and "20,000" in out
    assert png.read_bytes()[:4] == b"\x89PNG"
    text = page.read_text()
    assert "<svg" in text and "200,000" in text and "<?xml" not in text


@pytest.mark.parametrize("argv, message", [
    (["traffic", "nope.jsonl"], "no trace file 'nope.jsonl'"),
    (["traffic", "conversation", "--pools", "1e3", "--head", "3"], "can never fit"),
])
def test_errors_are_one_line(capsys, argv, message):
    assert main(argv + ["--no-progress", "--jobs", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("blockviz traffic: ") and message in err and "Traceback" not in err


def test_a_bad_pool_size_is_a_usage_error(capsys):
    with pytest.raises(SystemExit):
        main(["traffic", "conversation", "--pools", "1e5,lots"])
    assert "not a pool size in tokens: 'lots'" in capsys.readouterr().err


def test_a_request_the_engine_cannot_serve_is_named_before_any_replay(capsys, tmp_path):
    path = tmp_path / "long.jsonl"
    path.write_text(json.dumps({"timestamp": 0, "input_length": 300_000, "output_length": 7,
                                "hash_ids": list(range(-(-300_000 // 512)))}) + "\n")
    assert main(["traffic", str(path), "--pools", "1e7", "--no-progress", "--jobs", "1"]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("blockviz traffic: ") and "Traceback" not in captured.err
    assert "request 1 (index 0) has 300,000 prompt + 7 output = 300,007 tokens, more than the 262,144" in captured.err
    assert captured.out == ""  # not even the summary: nothing was worked out first
