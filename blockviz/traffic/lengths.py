"""Lengths in a trace's units and scaled ones: a hash id names 512 tokens of a prompt; a replay may
give each id fewer (tokens_per_id), every length scaled alike and rounded up."""
import numpy as np

HASH_BLOCK = 512  # tokens per hash id in the format (Mooncake, aiperf, Dynamo)


def scaled(length: int, tokens_per_id: int) -> int:
    """A length of the trace (in its 512-token units) at tokens_per_id tokens per id, rounded up."""
    return -(-length * tokens_per_id // HASH_BLOCK)


def prompt_length(ids: np.ndarray, input_length: int, tokens_per_id: int = HASH_BLOCK) -> int:
    """Whole blocks of tokens_per_id, then the last block's share of the prompt, rounded up."""
    last = input_length - HASH_BLOCK * (len(ids) - 1)
    return (len(ids) - 1) * tokens_per_id + scaled(last, tokens_per_id)


def output_length(length: int, tokens_per_id: int = HASH_BLOCK) -> int:
    """Generated tokens of a request, scaled like its prompt (at least one)."""
    return max(1, scaled(length, tokens_per_id))
