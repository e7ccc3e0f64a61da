"""Tokens from hash ids: the same id gives the same tokens, different ids different blocks, no prompt
token is ever an output token, and lengths scale as documented."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from blockviz.traffic.lengths import output_length, prompt_length
from blockviz.traffic.tokens import OUTPUT_TOKEN, prompt_array, prompt_tokens


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


def by_the_definition(ids: list[int], input_length: int, tokens_per_id: int, vocab_size: int) -> list[int]:
    """The module docstring's tokens, one at a time in Python's own integers."""
    m = 2**64

    def mix64(x: int) -> int:
        x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) % m
        x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) % m
        return x ^ (x >> 31)

    tokens = [1 + (h % (vocab_size - 1) if j == 0 else mix64((h * 0x9E3779B97F4A7C15 + j) % m) % min(255, vocab_size - 1))
              for h in ids for j in range(tokens_per_id)]
    return tokens[:prompt_length(np.array(ids), input_length, tokens_per_id)]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 2**63 - 1), min_size=1, max_size=4), st.integers(1, 512), st.sampled_from([1, 3, 32, 512]),
       st.sampled_from([2, 3, 200, 256, 257, 2**31]))
def test_the_tokens_are_the_documented_ones(ids, last, tokens_per_id, vocab_size):
    length = 512 * (len(ids) - 1) + last
    made = prompt_array(np.array(ids), length, tokens_per_id, vocab_size)
    assert made.dtype == np.int64 and made.tolist() == by_the_definition(ids, length, tokens_per_id, vocab_size)
    assert prompt_tokens(np.array(ids), length, tokens_per_id, vocab_size) == made.tolist()
