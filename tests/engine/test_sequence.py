"""Sequence: nano-vllm's request object, with a per-instance block size."""
import pytest

from blockviz.engine.sequence import Sequence, SequenceStatus
from blockviz.sampling_params import SamplingParams


def test_empty_prompt_is_rejected():
    with pytest.raises(ValueError, match="prompt"):
        Sequence([], SamplingParams(), block_size=4)


@pytest.mark.parametrize("block_size", [0, -1])
def test_bad_block_size_is_rejected(block_size):
    with pytest.raises(ValueError, match="block_size"):
        Sequence([1, 2], SamplingParams(), block_size=block_size)


@pytest.mark.parametrize("kwargs", [{"max_tokens": 0}, {"temperature": -0.5}])
def test_bad_sampling_params_are_rejected(kwargs):
    with pytest.raises(ValueError):
        SamplingParams(**kwargs)


def test_block_size_is_per_instance():
    a = Sequence(list(range(10)), block_size=4)
    b = Sequence(list(range(10)), block_size=3)
    assert (a.block_size, b.block_size, Sequence.block_size) == (4, 3, 256)
    assert (a.num_blocks, b.num_blocks) == (3, 4)
    assert a.block(2) == [8, 9] and b.block(3) == [9]
    assert (a.last_block_num_tokens, b.last_block_num_tokens) == (2, 1)


def test_blocks_cover_the_tokens_in_order():
    tokens = [5, 1, 4, 1, 5, 9, 2, 6, 5]
    for B in range(1, 11):
        seq = Sequence(tokens, block_size=B)
        assert sum((seq.block(i) for i in range(seq.num_blocks)), []) == tokens
        assert all(len(seq.block(i)) == B for i in range(seq.num_blocks - 1))
        assert 1 <= seq.last_block_num_tokens <= B


def test_append_token_and_counts():
    prompt = [1, 2, 3]
    seq = Sequence(prompt, SamplingParams(max_tokens=4, ignore_eos=True), block_size=2)
    prompt.append(99)  # the sequence keeps its own copy
    assert seq.token_ids == [1, 2, 3] and seq.num_blocks == 2
    seq.append_token(7)
    assert (len(seq), seq.last_token, seq.num_completion_tokens) == (4, 7, 1)
    assert seq.prompt_token_ids == [1, 2, 3] and seq.completion_token_ids == [7]
    assert seq.num_blocks == 2
    seq.append_token(8)
    assert seq.num_blocks == 3
    assert (seq.max_tokens, seq.ignore_eos, seq.status) == (4, True, SequenceStatus.WAITING)


def test_seq_ids_are_unique():
    ids = {Sequence([1]).seq_id for _ in range(5)}
    assert len(ids) == 5
