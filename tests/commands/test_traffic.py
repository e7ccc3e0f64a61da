"""`blockviz traffic`: the curve alone in tokens and GiB, replays beside it, refused requests counted,
the drawings, every argument checked first (one line each), the same replays for any number of processes."""
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


def test_nothing_but_a_trace_prints_the_summary_bound_and_curve_in_tokens_and_gib(capsys):
    assert main(["traffic", "synthetic"]) == 0
    out = capsys.readouterr().out
    c = traffic.curve(traffic.load("synthetic"))
    assert "3,993 requests" in out and f"at most {c.max_hit_rate:.1%}" in out and "GiB" in out
    assert "147,456 bytes of KV a token" in out             # Qwen3-8B, the default model
    assert f"{c.pool_for(c.max_hit_rate / 2):,} tokens" in out
    assert "faithful replays" not in out                    # none asked for


def test_replays_at_pools_in_gib_beside_the_curve_and_the_drawings(capsys, tmp_path):
    png, page = tmp_path / "c.png", tmp_path / "c.html"
    assert main(["traffic", "conversation", "--head", "40", "--pools", "1e6,2GiB", "--model", "qwen3-0.6b",
                 "--jobs", "1", "--png", str(png), "--html", str(page)]) == 0
    out = capsys.readouterr().out
    tokens = 2 * 2**30 // 114_688   # Qwen3-0.6B's KV bytes a token
    assert f"{tokens:,}" in out and "1,000,000" in out and "faithful replays" in out
    assert "\x1b[" not in out       # no progress bar off a terminal
    assert png.read_bytes()[:4] == b"\x89PNG"
    text = page.read_text()
    assert "<svg" in text and f"{tokens:,}" in text and "<?xml" not in text
    assert "blockviz traffic conversation --pools 1e6,2GiB --model qwen3-0.6b --head 40" in text
    assert "40 requests" in text


def test_several_policies_replay_at_the_same_pools_each_in_its_table_and_marker(capsys, tmp_path):
    page = tmp_path / "c.html"
    assert main(["traffic", "conversation", "--head", "40", "--pools", "3e5,1e6", "--policy", "nano-vllm,sglang",
                 "--jobs", "1", "--html", str(page)]) == 0
    out = capsys.readouterr().out
    trace = traffic.load("conversation").head(40)
    for policy in ("nano-vllm", "sglang"):
        table = out[out.index(f"({policy}, arrivals: timestamps"):]
        rows = [line.split() for line in table.splitlines()[2:4]]
        assert [r[0] for r in rows] == ["300,000", "1,000,000"]
        for pool, row in zip((300_000, 1_000_000), rows):
            assert row[2] == f"{traffic.replay(trace, pool, policy=policy).hit_rate:.1%}"
    text = page.read_text()
    assert "faithful replays (nano-vllm, timestamps)" in text and "faithful replays (sglang, timestamps)" in text
    assert "--policy nano-vllm,sglang" in text


def test_a_pool_smaller_than_a_request_refuses_it_and_every_row_is_printed(capsys):
    assert main(["traffic", "conversation", "--head", "30", "--pools", "2e4,1e6", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.strip().startswith(("20,000 ", "1,000,000 "))]
    replayed = [r for r in rows if len(r) == 8]
    assert [r[0] for r in replayed] == ["20,000", "1,000,000"]
    trace = traffic.load("conversation").head(30)
    refused = traffic.replay(trace, 20_000).refused
    assert int(replayed[0][4]) == refused.sum() > 0 and replayed[1][4] == "0"


def test_a_scaled_replay_says_so_and_sizes_stay_real(capsys):
    assert main(["traffic", "conversation", "--head", "30", "--block-size", "32", "--tokens-per-id", "32",
                 "--pools", "1e6", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "scaled: 32 tokens a hash id" in out and "1,000,000" in out


@pytest.mark.parametrize("argv, messages", [
    (["nope.jsonl"], ["no trace file 'nope.jsonl'"]),
    (["conversation", "--tokens-per-id", "0"], ["--tokens-per-id must be a whole number in 1..512, got '0'"]),
    (["nope.jsonl", "--tokens-per-id", "0", "--block-size", "x", "--jobs", "0", "--pools", "1e5,lots",
      "--model", "gpt-5"],
     ["--block-size must be a whole number, got 'x'", "--tokens-per-id", "--jobs", "no model 'gpt-5'",
      "'lots' is not a size"]),
    (["conversation", "--pools", "1e5,lots"], ["'lots' is not a size"]),
    (["conversation", "--pools", "8GiB,80XB"], ["unknown unit 'XB'"]),
    (["conversation", "--pools", "1e5,,1e6"], ["single commas"]),
    (["conversation", "--png", "/no/such/folder/c.png"], ["--png: no folder '/no/such/folder'"]),
    (["conversation", "--policy", "nano-vllm,radix"], ["--policy: 'radix' is not a policy: choose from nano-vllm, vllm, sglang"]),
    (["conversation", "--policy", "sglang,sglang"], ["--policy names a policy twice"]),
])
def test_bad_arguments_are_one_line_each_before_the_trace_is_read(capsys, argv, messages):
    assert main(["traffic"] + argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert all(line.startswith("blockviz traffic: ") for line in lines) and "Traceback" not in captured.err
    assert "Warning" not in captured.err and len(lines) == len(messages)
    for message, line in zip(messages, lines):
        assert message in line
    assert captured.out == ""


def test_a_request_the_engine_cannot_serve_is_named_before_any_replay(capsys, tmp_path):
    path = tmp_path / "long.jsonl"
    path.write_text(json.dumps({"timestamp": 0, "input_length": 300_000, "output_length": 7,
                                "hash_ids": list(range(-(-300_000 // 512)))}) + "\n")
    assert main(["traffic", str(path), "--pools", "1e7", "--no-progress", "--jobs", "1"]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("blockviz traffic: ") and "Traceback" not in captured.err
    assert "request 1 (index 0) has 300,000 prompt + 7 output = 300,007 tokens, more than the 262,144" in captured.err
    assert captured.out == ""  # not even the summary: nothing was worked out first
