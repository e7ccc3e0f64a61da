"""Tokens from hash ids: the same id gives the same tokens, different ids different blocks, no prompt
token is ever an output token, and lengths scale as documented."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from blockviz.traffic.lengths import output_length, prompt_length
from blockviz.traffic.tokens import OUTPUT_TOKEN, prompt_tokens


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 2**31 - 3), min_size=1, max_size=5), st.lists(st.integers(0, 2**31 - 3), min_size=1,
       max_size=5), st.sampled_from([1, 2, 7, 32, 512]), st.integers(0, 511))
def test_blocks_equal_exactly_where_ids_are_equal(a, b, tokens_per_id, cut):
    length_a = 512 * (len(a) - 1) + 1 + cut
    pa, pb = prompt_tokens(np.array(a), length_a, tokens_per_id), prompt_tokens(np.array(b), 512 * len(b), tokens_per_id)
    assert pa == prompt_tokens(np.array(a), length_a, tokens_per_id)   # deterministic
    assert len(pa) == (len(a) - 1) * tokens_per_id + math.ceil((1 + cut) * tokens_per_id / 512)
    for i in range(min(len(a), len(b)) - 1):   # every whole block of both
        block_a, block_b = pa[i * tokens_per_id:(i + 1) * tokens_per_id], pb[i * tokens_per_id:(i + 1) * tokens_per_id]
        assert (block_a == block_b) == (a[i] == b[i])   # ids below 2**31 - 2 differ in their first token
    assert OUTPUT_TOKEN not in pa and 0 < min(pa) and max(pa) <= 2**31 - 1


def test_large_ids_differ_in_their_other_tokens():
    big = 2**62 + 12345
    a, b = prompt_tokens(np.array([big]), 512), prompt_tokens(np.array([big + 2**31 - 1]), 512)
    assert a[0] == b[0] and a != b and max(a + b) <= 2**31 - 1


def test_a_block_is_the_same_in_any_prompt():
    one = prompt_tokens(np.array([9, 4, 11]), 1100)
    other = prompt_tokens(np.array([3, 4]), 1024)
    assert one[512:1024] == other[512:1024]
    assert len(one) == 1100 and len(one[1024:]) == 76


def test_vocabulary_and_scaling():
    tokens = prompt_tokens(np.arange(40), 40 * 512, 32, vocab_size=100)
    assert len(tokens) == 40 * 32 and max(tokens) <= 99 and min(tokens) >= 1
    assert prompt_length(np.arange(3), 1025, 32) == 65 and prompt_length(np.arange(3), 1536, 32) == 96
    assert output_length(343, 512) == 343 and output_length(343, 32) == 22 and output_length(1, 32) == 1
    with pytest.raises(ValueError, match="tokens_per_id must be in 1..512"):
        prompt_tokens(np.arange(2), 600, 0)
    with pytest.raises(ValueError, match="vocab_size"):
        prompt_tokens(np.arange(2), 600, 32, vocab_size=1)
