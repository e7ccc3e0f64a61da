"""A Sequence that keeps its prompt packed and hands its blocks to the BlockManager as the bytes
compute_hash hashes.

nano-vllm's BlockManager hashes a block as `np.array(token_ids).tobytes()` and keeps the block's
token ids, to compare with the next block that hashes the same. In a trace replay (145M prompt
tokens, 430 000 blocks hashed) those lists cost more than the engine: made, checked twice, then
turned back into arrays block by block. A PackedSequence keeps its prompt as int64 bytes and what
it generates as a list, and:

- `block(i)` returns the block's bytes: compute_hash's `np.array(bytes).tobytes()` gives the same
  bytes back, so every hash is the one the list of ids gives, and two blocks' bytes are equal
  exactly when their ids are (int64, fixed width). Every decision is the same, provided every
  sequence of the engine is packed (a list never equals bytes): blockviz.traffic.simulator's
  TraceSimulator takes nothing else. `packed_hash` is compute_hash for such bytes without numpy's
  round trip (a third of a hash's cost).
- `append_token` appends to the generated list; `token_ids` is a read-only view of the prompt, then
  what was generated (a list made when sliced): the engine reads it only through `block` and `len`,
  and changes it only through `append_token`, so no list of a prompt's ids is ever made.

What a cached Block holds is bytes, not a list of ids, so a view of such an engine would show bytes;
a replay that records (for the views) runs plain Sequences.
"""
from collections import abc

import numpy as np
import xxhash

from blockviz.engine.block_manager import BlockManager
from blockviz.engine.sequence import Sequence
from blockviz.sampling_params import SamplingParams

ITEM = np.dtype(np.int64).itemsize   # compute_hash packs a list of ids as numpy's default int: int64


class PackedSequence(Sequence):

    def __init__(self, prompt: np.ndarray, sampling_params: SamplingParams = SamplingParams(),
                 block_size: int | None = None):
        prompt = np.asarray(prompt)
        if prompt.ndim != 1 or prompt.dtype.kind not in "iu":
            raise ValueError(f"a packed prompt is a 1-D array of integer token ids, got {prompt.dtype} "
                             f"of shape {prompt.shape}")
        super().__init__(prompt.astype(np.int64, copy=False), sampling_params, block_size)   # through the setter
        self.last_token = int(self.last_token)
        self.whole_blocks = self.num_prompt_tokens // self.block_size   # blocks of prompt tokens only
        self.block_bytes = self.block_size * ITEM

    @property
    def token_ids(self) -> "PackedTokens":
        return PackedTokens(self)

    @token_ids.setter
    def token_ids(self, prompt: np.ndarray):   # Sequence.__init__ sets the prompt, once
        self.packed = np.asarray(prompt, dtype=np.int64).tobytes()
        self.generated: list[int] = []

    @property
    def prompt(self) -> np.ndarray:
        """The prompt's token ids (read-only: the bytes the blocks are cut from)."""
        return np.frombuffer(self.packed, dtype=np.int64)

    def append_token(self, token_id: int):
        self.generated.append(token_id)
        self.last_token = token_id
        self.num_tokens += 1

    def block(self, i):
        if 0 <= i < self.whole_blocks:   # nearly every call: a slice of the prompt's bytes
            return self.packed[i * self.block_bytes:(i + 1) * self.block_bytes]
        assert 0 <= i < self.num_blocks
        start, end, prompt = i * self.block_size, min((i + 1) * self.block_size, self.num_tokens), self.num_prompt_tokens
        if end <= prompt:
            return self.packed[start * ITEM:end * ITEM]
        generated = self.generated[max(start - prompt, 0):end - prompt]   # ints in 0..2**31-1: packed as compute_hash packs them
        return self.packed[min(start, prompt) * ITEM:] + np.array(generated, dtype=np.int64).tobytes()


def packed_hash(token_ids: bytes, prefix: int = -1) -> int:
    """BlockManager.compute_hash of a packed block, in one call: xxh64 of the prefix hash's 8 bytes,
    then the block's bytes, as compute_hash feeds them (a list of ids goes to compute_hash itself).
    A packed engine's BlockManager hashes with this (TraceSimulator sets it as the instance's)."""
    if type(token_ids) is not bytes:
        return BlockManager.compute_hash(token_ids, prefix)
    return xxhash.xxh64_intdigest(token_ids if prefix == -1 else prefix.to_bytes(8, "little") + token_ids)


class PackedTokens(abc.Sequence):
    """A PackedSequence's token ids, read-only: its prompt's, then what it generated."""
    __slots__ = ("seq",)

    def __init__(self, seq: PackedSequence):
        self.seq = seq

    def __len__(self) -> int:
        return len(self.seq.packed) // ITEM + len(self.seq.generated)

    def __getitem__(self, key):
        return self.list()[key]

    # each on one list, not abc.Sequence's one index (and one list) at a time
    def __iter__(self):
        return iter(self.list())

    def __reversed__(self):
        return reversed(self.list())

    def __contains__(self, token_id) -> bool:
        return token_id in self.list()

    def index(self, token_id, *bounds) -> int:
        return self.list().index(token_id, *bounds)

    def count(self, token_id) -> int:
        return self.list().count(token_id)

    def list(self) -> list[int]:
        return self.seq.prompt.tolist() + self.seq.generated

    def __eq__(self, other) -> bool:
        return isinstance(other, (list, tuple, PackedTokens)) and self.list() == list(other)

    def __repr__(self) -> str:
        return repr(self.list())
