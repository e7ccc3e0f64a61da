"""The ladder against hand-made data: a four-request trace slice at 4 tokens an id, blocks of 4, a
pool of 5 blocks, and a made-up vLLM; every figure below is worked out by hand in the comments."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from blockviz import traffic
from blockviz.traffic.lab import lab_stream
from blockviz.traffic.lengths import output_length
from blockviz.traffic.ladder import RUNGS, as_sent, ladder
from blockviz.traffic.tokens import prompt_tokens
from blockviz.traffic.trace import Trace
from blockviz.vllm.lab.outcome import Outcome
from blockviz.vllm.lab.run import replay

TPI = 4      # tokens per id, and the block size: one id a block
VOCAB = 4096

# ids of each request: A B C, A B D, a filler F G H that shares nothing, A B C E
IDS = [[1, 2, 3], [1, 2, 4], [9, 10, 11], [1, 2, 3, 5]]


def hand_trace() -> Trace:
    return Trace("hand", np.array([0, 1000, 2000, 3000]), np.array([len(x) * 512 for x in IDS]),
                 np.array([128] * 4), np.cumsum([0] + [len(x) for x in IDS]), np.concatenate(IDS))


def served(real_cached: list[int], vllm_blocks: int = 6):
    trace = hand_trace()
    stream = lab_stream(trace, VOCAB, max_model_len=64, tokens_per_id=TPI, max_tokens=1)
    prompts = [r.tokens for r in stream]
    generated = [(7,)] * len(stream)
    made_up = [Outcome(c, (), frozenset()) for c in real_cached]
    return trace, replay(stream, prompts, generated, made_up, block_size=TPI, vllm_blocks=vllm_blocks, record=False)


def test_the_ladder_by_hand():
    trace, result = served([0, 8, 0, 8])
    table = ladder(trace, result, TPI)
    assert [r.name for r in table.rungs] == list(RUNGS)
    assert table.prompt_tokens == (12, 12, 12, 16) and table.pool_blocks == 5
    # infinite cache: request 1 finds A B (its last block is never probed), request 3 A B C
    assert table.rung("infinite cache").cached_tokens == (0, 8, 0, 12)
    # a pool of 5 blocks, LRU, a request's first block released last (most recent):
    # after request 1 the stack is A, AB, ABD, gen1, ABC, gen0; the filler puts 4 blocks on top,
    # so A is 4 blocks deep (hits at 5) and AB 5 (A, F, FG, FGH, genF: needs 6)
    assert table.rung("one-pass curve").cached_tokens == (0, 8, 0, 4)
    real = table.rung("real vLLM")
    assert real.cached_tokens == (0, 8, 0, 8) and real.mae_points == 0
    assert real.hit_rate == pytest.approx(16 / 52)
    # the infinite cache is 4 tokens off on request 3's 16: 25 points, over 4 requests
    assert table.rung("infinite cache").mae_points == pytest.approx(25 / 4)
    assert table.rung("one-pass curve").mae_points == pytest.approx(25 / 4)
    assert table.rung("infinite cache").hit_rate == pytest.approx(20 / 52)
    # the engines' rungs are their own outcomes, scored the same way
    nano = [o.cached_tokens for o in result.nano]
    assert table.rung("nano-vllm").cached_tokens == tuple(nano)
    assert table.rung("nano-vllm").mae_points == pytest.approx(
        np.mean([abs(a - b) / p for a, b, p in zip(nano, [0, 8, 0, 8], [12, 12, 12, 16])]) * 100)
    text = str(table)
    assert "infinite cache" in text and "6.25 pts" in text and "hand: 4 requests, 52 prompt tokens" in text


def test_a_big_pool_makes_the_curve_the_infinite_cache():
    trace, result = served([0, 8, 0, 12], vllm_blocks=40)
    table = ladder(trace, result, TPI)
    assert table.rung("one-pass curve").cached_tokens == table.rung("infinite cache").cached_tokens == (0, 8, 0, 12)
    assert table.rung("one-pass curve").mae_points == 0


def test_a_slice_and_a_lab_of_different_lengths_is_refused():
    trace, result = served([0, 8, 0, 8])
    with pytest.raises(ValueError, match="4 requests, the trace slice has 3"):
        ladder(trace.head(3), result, TPI)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 200), st.integers(2, 40), st.sampled_from([4, 16, 32]), st.integers(1, 6))
def test_as_sent_gives_back_the_prompts_the_lab_sent(start, max_model_len_ids, tpi, max_tokens):
    trace = traffic.load("conversation").head(start + 5)
    trace = Trace("t", trace.timestamps_ms[start:], trace.input_lengths[start:], trace.output_lengths[start:],
                  trace.offsets[start:] - trace.offsets[start], trace.hash_ids[trace.offsets[start]:])
    stream = lab_stream(trace, VOCAB, max_model_len=max_model_len_ids * tpi + max_tokens, tokens_per_id=tpi,
                        max_tokens=max_tokens)
    sent = as_sent(trace, [len(r.tokens) for r in stream], [r.max_tokens for r in stream], tpi)
    for i, r in enumerate(stream):
        assert prompt_tokens(sent.ids(i), int(sent.input_lengths[i]), tpi, VOCAB) == list(r.tokens)
        assert output_length(int(sent.output_lengths[i]), tpi) == r.max_tokens
