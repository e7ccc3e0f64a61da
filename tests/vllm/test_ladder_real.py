"""The ladder (blockviz.traffic.ladder) over the policy lab's trace slice, against the real vLLM of
the session (conftest.py: 16 blocks of 32 tokens): every rung's hit rate and mean absolute error
per request against vLLM's reported cached_tokens, on two slices: the lab's (the first 30
requests, bursts included) and one under pool pressure (the first request of each of the first 100
timestamps, each sent alone, where the 15 blocks hold less than the infinite cache would).
Run with -s to see the tables."""
import numpy as np
import pytest

from blockviz import traffic
from blockviz.traffic.lab import lab_stream
from blockviz.traffic.ladder import ladder
from blockviz.vllm.lab import run_lab

from tests.vllm.conftest import BLOCKS
from tests.vllm.test_lab_traffic_real import take

pytestmark = pytest.mark.timeout(900)   # the first test of a session also waits for the server

VOCAB = 4096   # the embedded model's, which `blockviz vllm serve` runs
TOKENS_PER_ID = 32


def firsts(n: int):
    full = traffic.load("conversation")
    return take(full, np.flatnonzero(np.diff(full.timestamps_ms, prepend=-1) > 0)[:n].tolist())


SLICES = {"lab": lambda: traffic.load("conversation").head(30), "pressure": lambda: firsts(100)}


@pytest.fixture(scope="module", params=list(SLICES))
def table(request, vllm_server, live_watch):
    trace = SLICES[request.param]()
    stream = lab_stream(trace, VOCAB, max_model_len=(BLOCKS - 1) * 32, tokens_per_id=TOKENS_PER_ID, max_tokens=4)
    vllm_server.client.reset_prefix_cache()
    try:
        result = run_lab(stream, vllm_server.client, live_watch)
    finally:
        vllm_server.client.reset_prefix_cache()
    out = ladder(trace, result, TOKENS_PER_ID)
    print(f"\n{out}")
    return out


def test_the_real_vllm_is_the_reference_and_hits(table):
    real = table.rung("real vLLM")
    assert real.mae_points == 0 and real.hit_rate > 0


def test_the_infinite_cache_bounds_every_rung(table):
    bound = table.rung("infinite cache")
    assert all(bound.hit_rate >= r.hit_rate - 1e-12 for r in table.rungs), str(table)
    assert all(a <= b for a, b in zip(table.rung("one-pass curve").cached_tokens, bound.cached_tokens))


def test_vllms_rules_come_no_further_from_vllm_than_nano_vllm(table):
    assert table.rung("vLLM's rules").mae_points <= table.rung("nano-vllm").mae_points, str(table)
