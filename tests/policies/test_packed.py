"""A PackedSequence is nano-vllm's Sequence with its blocks as bytes: the same lengths, tokens and
block boundaries, and every block hashes (compute_hash, packed_hash) to what its list of ids hashes."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from blockviz.engine.block_manager import BlockManager
from blockviz.engine.sequence import Sequence
from blockviz.policies.packed import PackedSequence, packed_hash
from blockviz.sampling_params import SamplingParams

ids = st.integers(0, 2**31 - 1)


@settings(max_examples=150, deadline=None)
@given(st.lists(ids, min_size=1, max_size=40), st.lists(ids, max_size=20), st.integers(1, 9),
       st.sampled_from([-1, 0, 7, 2**63 - 1, 2**64 - 1]))
def test_a_packed_sequence_is_the_sequence_block_by_block(prompt, generated, block_size, prefix):
    params = SamplingParams(max_tokens=len(generated) + 1)
    plain, packed = Sequence(prompt, params, block_size), PackedSequence(np.array(prompt), params, block_size)
    for token in [None] + generated:   # before any token is generated, then after each
        if token is not None:
            plain.append_token(token), packed.append_token(token)
        assert (len(packed), packed.num_blocks, packed.last_block_num_tokens, packed.num_completion_tokens) == \
               (len(plain), plain.num_blocks, plain.last_block_num_tokens, plain.num_completion_tokens)
        assert packed.token_ids == plain.token_ids and list(packed.token_ids) == plain.token_ids
        assert (packed.prompt_token_ids, packed.completion_token_ids, packed[-1], packed.last_token) == \
               (plain.prompt_token_ids, plain.completion_token_ids, plain[-1], plain.last_token)
        for i in range(plain.num_blocks):
            block = packed.block(i)
            assert block == np.array(plain.block(i)).tobytes()
            assert packed_hash(block, prefix) == BlockManager.compute_hash(block, prefix) \
                   == BlockManager.compute_hash(plain.block(i), prefix)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 300), min_size=1, max_size=6), st.lists(st.integers(0, 300), min_size=1, max_size=6))
def test_two_blocks_are_equal_bytes_exactly_when_their_ids_are_equal(a, b):
    assert (PackedSequence(np.array(a), block_size=8).block(0) == PackedSequence(np.array(b), block_size=8).block(0)) \
           == (a == b)


def test_a_list_still_hashes_as_the_engine_hashes_it():
    assert packed_hash([1, 2, 3], 5) == BlockManager.compute_hash([1, 2, 3], 5)


@pytest.mark.parametrize("prompt", [np.array([1.0, 2.0]), np.array([[1, 2]]), np.array([True])])
def test_a_packed_prompt_is_one_row_of_integers(prompt):
    with pytest.raises(ValueError, match="1-D array of integer token ids"):
        PackedSequence(prompt)


def test_an_empty_prompt_is_refused_as_the_engine_refuses_it():
    with pytest.raises(ValueError, match="at least one prompt token"):
        PackedSequence(np.array([], dtype=np.int64))


def test_reading_the_token_ids_makes_one_list():
    seq = PackedSequence(np.arange(1, 20_001), block_size=16)
    seq.append_token(0)
    tokens = seq.token_ids
    assert list(tokens) == list(range(1, 20_001)) + [0] and list(reversed(tokens))[:2] == [0, 20_000]
    assert 20_000 in tokens and tokens.index(0) == 20_000 and tokens.count(0) == 1 and len(tokens) == 20_001
