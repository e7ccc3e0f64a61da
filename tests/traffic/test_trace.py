"""A trace's statistics, slices and the infinite-cache bound, against a reference written apart."""
import gzip
import json

import pytest
from hypothesis import given, settings, strategies as st

from blockviz import traffic
from blockviz.traffic.read import DATA_DIR
from tests.traffic.reference import block_count, infinite_cache_tokens
from tests.traffic.test_read import write


def rows_of(name):
    with gzip.open(DATA_DIR / traffic.SHIPPED[name], "rt") as f:
        return [json.loads(line) for line in f]


@pytest.mark.parametrize("name", ["conversation", "synthetic"])
def test_theoretical_hit_rate_of_the_shipped_traces(name):
    rows, trace = rows_of(name), traffic.load(name)
    expected = infinite_cache_tokens(rows)
    assert trace.theoretical_cached_tokens().tolist() == expected
    assert trace.theoretical_hit_rate() == pytest.approx(sum(expected) / sum(r["input_length"] for r in rows))


def test_a_block_hits_only_with_every_block_before_it():
    # request 3 has seen ids 1 and 3 but not the prefix (1, 3): only its first block hits
    rows = [{"timestamp": 0, "input_length": 1024, "output_length": 1, "hash_ids": [1, 2]},
            {"timestamp": 1, "input_length": 600, "output_length": 1, "hash_ids": [3, 4]},
            {"timestamp": 2, "input_length": 1100, "output_length": 1, "hash_ids": [1, 2, 5]},
            {"timestamp": 3, "input_length": 700, "output_length": 1, "hash_ids": [1, 2]}]
    assert infinite_cache_tokens(rows) == [0, 0, 1024, 700]


def tree_ids(contents: list[tuple[int, ...]]) -> list[list[int]]:
    """Hash ids as the format means them: one id per distinct prefix of block contents."""
    ids: dict[tuple, int] = {}
    return [[ids.setdefault(c[:j + 1], len(ids)) for j in range(len(c))] for c in contents]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 2600), st.lists(st.integers(0, 2), min_size=6, max_size=6)),
                min_size=1, max_size=25))
def test_theoretical_matches_the_reference_on_random_traces(tmp_path_factory, drawn):
    # block contents from a small alphabet, so prefixes repeat and part
    contents = [tuple(blocks[:block_count(n)]) for n, blocks in drawn]
    rows = [{"timestamp": i, "input_length": n, "output_length": 1, "hash_ids": ids}
            for i, ((n, _), ids) in enumerate(zip(drawn, tree_ids(contents)))]
    trace = traffic.load(write(tmp_path_factory.mktemp("t") / "t.jsonl", rows))
    assert trace.theoretical_cached_tokens().tolist() == infinite_cache_tokens(rows)


def test_slices():
    trace = traffic.load("conversation")
    rows = rows_of("conversation")
    head = trace.head(100)
    assert len(head) == 100 and [head.ids(i).tolist() for i in range(100)] == [r["hash_ids"] for r in rows[:100]]
    assert head.theoretical_cached_tokens().tolist() == infinite_cache_tokens(rows[:100])
    assert len(trace.head(10**9)) == len(trace)
    window = trace.window(600, 1200)
    inside = [r for r in rows if 600_000 <= r["timestamp"] < 1_200_000]
    assert len(window) == len(inside) and window.timestamps_ms[0] == inside[0]["timestamp"]
    assert window.theoretical_cached_tokens().tolist() == infinite_cache_tokens(inside)
    assert window.summary().prompt_tokens == sum(r["input_length"] for r in inside)
    with pytest.raises(ValueError, match="no request arrives"):
        trace.window(10_000, 10_001)
    with pytest.raises(ValueError, match="0 <= start_s < end_s"):
        trace.window(5, 5)
    with pytest.raises(ValueError, match="head takes"):
        trace.head(0)


def test_arrivals_per_minute():
    trace, rows = traffic.load("synthetic"), rows_of("synthetic")
    per_minute = trace.arrivals(60)
    assert per_minute.sum() == len(rows)
    assert per_minute[3] == sum(1 for r in rows if 180_000 <= r["timestamp"] < 240_000)
