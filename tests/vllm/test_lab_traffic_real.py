"""The policy lab over a slice of the conversation trace, against the real vLLM of the session
(conftest.py: 16 blocks of 32 tokens): vLLM's cached_tokens the reference, each difference of a
request sent on its own explained by a rule. Then a slice built so that the engines differ: pool
pressure, where vLLM's free queue (unhashed blocks freed to its head) keeps a prefix nano-vllm
evicts."""
import numpy as np
import pytest

from blockviz import traffic
from blockviz.traffic.lab import lab_stream
from blockviz.traffic.trace import Trace
from blockviz.vllm.lab import run_lab
from blockviz.vllm.lab.nano import run_nano
from blockviz.vllm.lab.rules import FREE_UNHASHED_FIRST
from blockviz.vllm.lab.stream import batches

from tests.vllm.conftest import BLOCKS

pytestmark = pytest.mark.timeout(900)   # the first test of a session also waits for the server

VOCAB = 4096   # the embedded model's, which `blockviz vllm serve` runs


@pytest.fixture(scope="module")
def result(vllm_server, live_watch):
    trace = traffic.load("conversation").head(30)
    stream = lab_stream(trace, VOCAB, max_model_len=(BLOCKS - 1) * 32, tokens_per_id=32, max_tokens=4)
    vllm_server.client.reset_prefix_cache()
    try:
        yield run_lab(stream, vllm_server.client, live_watch)
    finally:
        vllm_server.client.reset_prefix_cache()


def test_the_trace_slice_hits_in_both_engines(result):
    assert sum(o.cached_tokens for o in result.vllm) > 0 and sum(o.cached_tokens for o in result.nano) > 0


def test_every_difference_of_a_request_sent_alone_is_explained(result):
    alone = {b[0] for b in batches(result.requests) if len(b) == 1}
    assert [d for d in result.differences if d.index in alone and not d.explained] == [], result.summary()
    assert result.last_token_rule_agrees() == []


PRESSURE_TOKENS_PER_ID = 8   # prompts of a few blocks: several conversations share the 15 blocks


def take(trace: Trace, rows: list[int]) -> Trace:
    ids = [trace.ids(i) for i in rows]
    return Trace(f"{trace.name}{rows[:2]}…", trace.timestamps_ms[rows], trace.input_lengths[rows],
                 trace.output_lengths[rows], np.cumsum([0] + [len(x) for x in ids]), np.concatenate(ids))


def pressure_stream(trace: Trace):
    """The first request of each of twenty timestamps in a row (the trace's timestamps come in
    3-second steps, most shared: one of each, so every request is sent alone, the lab's case where
    each difference has its rule), then the first later request that nano-vllm serves from its
    cache differently with vLLM's free queue put in (offline, generated tokens stood in for): a
    stream where the free queue's order decides a hit."""
    firsts = np.flatnonzero(np.diff(trace.timestamps_ms, prepend=-1) > 0)   # each timestamp's first request

    def stream(rows):
        return lab_stream(take(trace, rows), VOCAB, max_model_len=(BLOCKS - 1) * 32,
                          tokens_per_id=PRESSURE_TOKENS_PER_ID, max_tokens=4)

    def cached(requests, rules):
        played = [[(requests[i].tokens, (1,) * requests[i].max_tokens) for i in b] for b in batches(requests)]
        return [o.cached_tokens for o in run_nano(played, BLOCKS - 1, 32, rules)[1]]

    for start in range(0, 200, 5):
        window = firsts[start:start + 20].tolist()
        seen = {h for i in window for h in trace.ids(i)[1:].tolist()}
        for later in firsts[start + 20:start + 1000].tolist():
            if len(trace.ids(later)) < 2 or int(trace.ids(later)[1]) not in seen:
                continue   # it shares no more than the first id with the window: the same hit either way
            requests = stream(window + [later])
            if cached(requests, frozenset())[-1] != cached(requests, frozenset({FREE_UNHASHED_FIRST}))[-1]:
                return requests
    raise AssertionError("no slice of the trace where vLLM's free queue changes a hit")


@pytest.fixture(scope="module")
def pressure(vllm_server, live_watch):
    stream = pressure_stream(traffic.load("conversation"))
    vllm_server.client.reset_prefix_cache()
    try:
        yield run_lab(stream, vllm_server.client, live_watch)
    finally:
        vllm_server.client.reset_prefix_cache()


def test_under_pool_pressure_the_engines_differ_and_the_free_queue_explains_it(pressure):
    assert all(len(b) == 1 for b in batches(pressure.requests))
    cached = [d for d in pressure.differences if d.what == "cached_tokens"]
    assert cached, pressure.summary()   # vLLM's cached_tokens, the reference, is not nano-vllm's
    assert any(FREE_UNHASHED_FIRST in d.rules for d in cached), pressure.summary()
    assert pressure.unexplained == [], pressure.summary()
