"""Reading traces: the shipped ones, any file in the format, and every kind of bad line refused by name."""
import gzip
import json

import pytest
from hypothesis import given, settings, strategies as st

from blockviz import traffic
from blockviz.traffic.read import MAX_LINE_BYTES, TraceFormatError
from tests.traffic.reference import block_count

GOOD = {"timestamp": 0, "input_length": 1000, "output_length": 5, "hash_ids": [7, 8]}


def write(path, rows, gz=False):
    text = "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows)
    if gz:
        with gzip.open(path, "wt") as f:
            f.write(text)
    else:
        path.write_text(text)
    return path


def test_shipped_traces_load_by_name():
    conversation, synthetic = traffic.load("conversation"), traffic.load("synthetic")
    assert (len(conversation), len(synthetic)) == (12_031, 3_993)
    s = conversation.summary()
    assert s.requests == 12_031 and s.prompt_tokens == 144_793_823 and s.output_tokens == 4_122_048
    assert s.distinct_blocks == 182_790 and s.prompt_blocks == 288_500
    assert synthetic.summary().longest_prompt + 0 <= synthetic.summary().longest_request == 191_386


@pytest.mark.parametrize("gz", [False, True])
def test_a_file_plain_or_gzipped(tmp_path, gz):
    rows = [GOOD, dict(GOOD, timestamp=5.5, input_length=513, hash_ids=[7, 9]), dict(GOOD, timestamp=9, extra="x")]
    trace = traffic.load(write(tmp_path / "t.jsonl", rows, gz))
    assert len(trace) == 3
    assert trace.input_lengths.tolist() == [1000, 513, 1000]
    assert trace.timestamps_ms.tolist() == [0, 5.5, 9]
    assert [trace.ids(i).tolist() for i in range(3)] == [[7, 8], [7, 9], [7, 8]]


@pytest.mark.parametrize("line, message", [
    ('[1, 2]', "line 2: a request is a JSON object"),
    ('{"timestamp": 1}', "line 2: missing fields 'input_length', 'output_length', 'hash_ids'"),
    ('{"a": ', "line 2: not JSON"),
    (dict(GOOD, input_length=-3, hash_ids=[]), "line 2: field 'input_length' must be a whole number"),
    (dict(GOOD, input_length=0, hash_ids=[]), "line 2: field 'input_length' must be a whole number"),
    (dict(GOOD, input_length=10.0), "line 2: field 'input_length'"),
    (dict(GOOD, output_length=True), "line 2: field 'output_length'"),
    (dict(GOOD, output_length=0), "line 2: field 'output_length'"),
    (dict(GOOD, hash_ids=[1]), r"line 2: field 'hash_ids' has 1 ids, but input_length 1000 is 2 blocks"),
    (dict(GOOD, hash_ids=[1, 2, 3]), "line 2: field 'hash_ids' has 3 ids"),
    (dict(GOOD, hash_ids=[1, -2]), r"line 2: field 'hash_ids\[1\]' = -2"),
    (dict(GOOD, hash_ids=[1, "2"]), r"line 2: field 'hash_ids\[1\]' = '2'"),
    (dict(GOOD, hash_ids=[1, 2**64]), r"line 2: field 'hash_ids\[1\]'"),
    (dict(GOOD, hash_ids="12"), "line 2: field 'hash_ids' must be a list"),
    (dict(GOOD, timestamp=-1), "line 2: field 'timestamp' must be a number"),
    ('{"timestamp": NaN, "input_length": 1, "output_length": 1, "hash_ids": [1]}', "line 2: field 'timestamp'"),
])
def test_a_bad_line_is_named_with_its_field(tmp_path, line, message):
    path = write(tmp_path / "bad.jsonl", [GOOD, line, GOOD])
    with pytest.raises(TraceFormatError, match=message) as e:
        traffic.load(path)
    assert str(path) in str(e.value)


def test_timestamps_going_backwards(tmp_path):
    path = write(tmp_path / "t.jsonl", [dict(GOOD, timestamp=10), dict(GOOD, timestamp=9)])
    with pytest.raises(TraceFormatError, match="line 2: field 'timestamp' = 9 is before the previous request's 10"):
        traffic.load(path)


def test_a_missing_file_names_the_shipped_traces(tmp_path):
    with pytest.raises(FileNotFoundError, match="'conversation', 'synthetic'"):
        traffic.load(tmp_path / "nope.jsonl")
    with pytest.raises(FileNotFoundError, match="no trace file 'conversatoin'"):
        traffic.load("conversatoin")


def test_non_trace_json_and_empty_files(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"model": "x", "layers": 4}, indent=2))
    with pytest.raises(TraceFormatError, match="line 1: not JSON"):
        traffic.load(tmp_path / "config.json")
    (tmp_path / "one.json").write_text(json.dumps({"model": "x"}))
    with pytest.raises(TraceFormatError, match="line 1: missing fields 'timestamp'"):
        traffic.load(tmp_path / "one.json")
    (tmp_path / "empty.jsonl").write_text("\n\n")
    with pytest.raises(TraceFormatError, match="no requests"):
        traffic.load(tmp_path / "empty.jsonl")
    (tmp_path / "broken.gz").write_bytes(gzip.compress(json.dumps(GOOD).encode() * 50)[:40])
    with pytest.raises(TraceFormatError, match="cannot be read"):
        traffic.load(tmp_path / "broken.gz")


def test_a_huge_line_is_refused_after_the_cap_not_read_whole(tmp_path):
    # a gzipped gigabyte of one line: refused once MAX_LINE_BYTES are read (the rest never inflates)
    path = tmp_path / "huge.jsonl.gz"
    member = gzip.compress(b"1, " * (1 << 20))   # gzip members concatenated are one stream
    with open(path, "wb") as f:
        f.write(gzip.compress(json.dumps(GOOD).encode() + b"\n" + b'{"hash_ids": ['))
        f.write(member * (1024 // 3 + 1))
    assert path.stat().st_size < 20 << 20
    with pytest.raises(TraceFormatError, match=f"line 2: longer than {MAX_LINE_BYTES} bytes"):
        traffic.load(path)


rows_strategy = st.lists(st.fixed_dictionaries({
    "gap": st.integers(0, 5000), "input_length": st.integers(1, 3000), "output_length": st.integers(1, 50),
    "ids": st.lists(st.integers(0, 6), min_size=6, max_size=6)}), min_size=1, max_size=30)


@settings(max_examples=60, deadline=None)
@given(rows_strategy)
def test_any_well_formed_file_loads_as_written(tmp_path_factory, drawn):
    rows, t = [], 0
    for d in drawn:
        t += d["gap"]
        rows.append({"timestamp": t, "input_length": d["input_length"], "output_length": d["output_length"],
                     "hash_ids": d["ids"][:block_count(d["input_length"])]})
    trace = traffic.load(write(tmp_path_factory.mktemp("t") / "t.jsonl", rows))
    assert len(trace) == len(rows)
    assert trace.timestamps_ms.tolist() == [r["timestamp"] for r in rows]
    assert trace.output_lengths.tolist() == [r["output_length"] for r in rows]
    assert [trace.ids(i).tolist() for i in range(len(rows))] == [r["hash_ids"] for r in rows]
