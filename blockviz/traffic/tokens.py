"""Token ids for a trace's prompts: the trace names each 512-token block by a hash id but does not
say what its tokens were, so each id is given its own tokens, the same ones every time.

Block of id h, token j (j = 0 .. tokens_per_id - 1):
- j = 0: 1 + h mod (vocab_size - 1): different ids start differently, so blocks of different ids
  are never equal (for ids below vocab_size - 1; the rest still differ in their other tokens);
- j > 0: 1 + mix(h, j) mod 255, pseudorandom bytes from a 64-bit mix (splitmix64) of h and j.
  Small on purpose: CPython keeps one shared object per int up to 256, so a pool of 50M cached
  tokens costs a pointer a token rather than an int object a token.
No prompt token is 0; every generated token is OUTPUT_TOKEN = 0, so a block holding output is
never equal to a prompt's block: no later prompt shares what a request generated (the trace's
next turn gives the answer's blocks new ids, so a replay must not hit them either).

tokens_per_id scales a 512-token block down to tokens_per_id tokens (512: every token real; 32
for small pools and the small model). Lengths are scaled alike, rounded up: the prompt keeps its
blocks (the last one cut to its share of the prompt) and the output its share of tokens. What
scaling keeps: which prompts share which prefixes, hence the infinite-cache hit rate up to the
rounding of partial last blocks, and the pool's reach when the pool is scaled by the same factor.
What it changes: every count of tokens (pool size, batch budget, decode steps) shrinks by
512 / tokens_per_id, blocks smaller than tokens_per_id split one id into several engine blocks,
and the rounding makes short prompts and outputs relatively longer.
"""
import numpy as np

from blockviz.checks import MAX_TOKEN_ID
from blockviz.traffic.lengths import HASH_BLOCK, prompt_length

OUTPUT_TOKEN = 0
FILLER_VALUES = 255   # tokens 1..255 after a block's first


def mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser, in place: every input bit moves every output bit (uint64, wrapping).
    In place, with one scratch array: a prompt's table is a few MB, and fresh temporaries per pass
    cost as much as the arithmetic."""
    shifted = np.empty_like(x)
    for shift, factor in ((30, 0xBF58476D1CE4E5B9), (27, 0x94D049BB133111EB), (31, None)):
        np.right_shift(x, np.uint64(shift), out=shifted)
        np.bitwise_xor(x, shifted, out=x)
        if factor is not None:
            np.multiply(x, np.uint64(factor), out=x)
    return x


def prompt_tokens(ids: np.ndarray, input_length: int, tokens_per_id: int = HASH_BLOCK,
                  vocab_size: int = MAX_TOKEN_ID + 1) -> list[int]:
    """The prompt of a request whose blocks have these hash ids (see the module's docstring)."""
    return prompt_array(ids, input_length, tokens_per_id, vocab_size).tolist()


def prompt_array(ids: np.ndarray, input_length: int, tokens_per_id: int = HASH_BLOCK,
                 vocab_size: int = MAX_TOKEN_ID + 1) -> np.ndarray:
    """prompt_tokens as an int64 array, made in a few passes over a (blocks x tokens_per_id) table:
    the replay hashes its blocks from these bytes (blockviz.policies.packed)."""
    if not 1 <= tokens_per_id <= HASH_BLOCK:
        raise ValueError(f"tokens_per_id must be in 1..{HASH_BLOCK}, got {tokens_per_id}")
    if not 2 <= vocab_size <= MAX_TOKEN_ID + 1:
        raise ValueError(f"vocab_size must be in 2..{MAX_TOKEN_ID + 1}, got {vocab_size}")
    h = np.asarray(ids, dtype=np.uint64)
    j = np.arange(tokens_per_id, dtype=np.uint64)
    with np.errstate(over="ignore"):
        table = remainder(mix((h * np.uint64(0x9E3779B97F4A7C15))[:, None] + j), min(FILLER_VALUES, vocab_size - 1))
    table[:, 0] = remainder(h.copy(), vocab_size - 1)   # in place: h may be the caller's array
    table += np.uint64(1)
    return table.reshape(-1)[:prompt_length(ids, input_length, tokens_per_id)].view(np.int64)


def remainder(x: np.ndarray, d: int) -> np.ndarray:
    """x % d for uint64 x, in place, as x - (x // d) * d: numpy divides by a scalar with a multiply and
    a shift (libdivide), a few times faster than its remainder."""
    d = np.uint64(d)
    quotient = np.floor_divide(x, d)
    np.multiply(quotient, d, out=quotient)
    return np.subtract(x, quotient, out=x)
