"""blockviz's RadixCache against SGLang's own (the sglang wheel in .venv-sglang), on the same random
operation streams: after every operation the matched lengths and indices, the lock deltas, the
evicted segments in order, and the whole tree (edges, values, locks, hits, priorities, evictable
leaves, the order of access and creation stamps) must be equal. Without .venv-sglang these tests
skip locally and fail in CI (CI=true). More streams: BLOCKVIZ_RADIX_STREAMS=N, or
bench/radix_vs_sglang.py for the 1,000-stream run."""
import os
import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tests.radix.sides import MAKE_ENV, SGLANG_PYTHON, SGLang, blockviz_run, first_difference
from tests.radix.streams import POLICIES, random_stream

STREAMS = int(os.environ.get("BLOCKVIZ_RADIX_STREAMS", "150"))


def need_sglang():
    """Skip without .venv-sglang, except in CI (CI=true), where its absence fails the test."""
    if not SGLANG_PYTHON.is_file():
        reason = f"no .venv-sglang: create it with `{MAKE_ENV}`"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason}; CI checks blockviz's RadixCache against SGLang's (scripts/test.sh creates it)")
        pytest.skip(reason)


@pytest.fixture(scope="module")
def sglang():
    need_sglang()
    with SGLang() as side:
        yield side


def same(sglang: SGLang, stream: dict) -> None:
    theirs = sglang.run(stream)
    assert not theirs["touched"], f"SGLang's cache called a stand-in: {theirs['touched']}"
    difference = first_difference(stream, blockviz_run(stream), theirs)
    assert difference is None, difference


def test_sglang_side_is_the_wheels_module(sglang):
    assert sglang.module_file.endswith("site-packages/sglang/srt/mem_cache/radix_cache.py")


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("page_size", [1, 2, 4])
def test_each_policy_and_page_size(sglang, policy, page_size):
    """A long stream for each setting, so none is left to chance."""
    stream = random_stream(random.Random(f"{policy}-{page_size}"), max_ops=120)
    stream.update(policy=policy, page_size=page_size, is_eagle=False)
    same(sglang, stream)


@settings(max_examples=STREAMS, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.randoms(use_true_random=False).map(random_stream))
def test_random_streams(sglang, stream):
    same(sglang, stream)


def test_the_comparison_sees_a_different_eviction(sglang):
    """The check's own reference: an LRU stream run as MRU on blockviz's side parts at the eviction."""
    stream = {"page_size": 1, "policy": "lru", "is_eagle": False, "ops": [
        {"op": "insert", "tokens": [1, 2], "value": None, "priority": 0, "inserted_len": 0},
        {"op": "insert", "tokens": [3, 4], "value": None, "priority": 0, "inserted_len": 0},
        {"op": "evict", "num_tokens": 1}]}
    theirs = sglang.run(stream)
    ours = blockviz_run(dict(stream, policy="mru"))
    assert theirs["seen"][2]["freed"] == [[1, 2]] and ours["seen"][2]["freed"] == [[3, 4]]
    assert "after op 2" in first_difference(stream, ours, theirs)
