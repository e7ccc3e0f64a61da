"""The policy lab over a slice of the conversation trace, against the real vLLM of the session
(conftest.py: 16 blocks of 32 tokens): vLLM's cached_tokens the reference, each difference of a
request sent on its own explained by a rule."""
import pytest

from blockviz import traffic
from blockviz.traffic.lab import lab_stream
from blockviz.vllm.lab import run_lab
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
