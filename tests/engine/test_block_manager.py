"""BlockManager: compute_hash against nano-vllm's definition (bb823b3), and the behaviours the lessons rely on."""
import struct

import numpy as np
import pytest
import xxhash

from blockviz.engine.block_manager import BlockManager
from blockviz.engine.sequence import Sequence
from blockviz.sampling_params import SamplingParams


def seed_hash(token_ids: list[int], parent: int = -1) -> int:
    """Seed 002's definition, written independently: xxh64 over the parent hash as 8
    little-endian bytes (when there is a parent) followed by the tokens as int64."""
    data = b""
    if parent != -1:
        data += struct.pack("<Q", parent)
    data += np.asarray(token_ids, dtype=np.int64).tobytes()
    return xxhash.xxh64_intdigest(data)


@pytest.mark.parametrize("token_ids", [[1, 2, 3, 4], [0], [7] * 256, [2**40, 3, 2**62], list(range(100, 116))])
def test_compute_hash_without_parent(token_ids):
    assert BlockManager.compute_hash(token_ids) == seed_hash(token_ids)
    assert BlockManager.compute_hash(token_ids, -1) == seed_hash(token_ids)


@pytest.mark.parametrize("parent", [0, 1, 2**32 + 5, 2**63 + 12345, 2**64 - 1])
def test_compute_hash_with_parent(parent):
    tokens = [5, 6, 7, 8]
    assert BlockManager.compute_hash(tokens, parent) == seed_hash(tokens, parent)
    assert BlockManager.compute_hash(tokens, parent) != BlockManager.compute_hash(tokens)


def test_compute_hash_chains_blocks():
    blocks = [[1, 2, 3, 4], [5, 6, 7, 8], [1, 2, 3, 4]]
    h, hashes = -1, []
    for block in blocks:
        h = seed_hash(block, h)
        hashes.append(h)
    got, h = [], -1
    for block in blocks:
        h = BlockManager.compute_hash(block, h)
        got.append(h)
    assert got == hashes
    # the same block content after a different history is a different block identity
    assert got[2] != got[0]
    # the chain is over the whole prefix: changing block 0 changes every later hash
    other = BlockManager.compute_hash([1, 2, 3, 5])
    assert BlockManager.compute_hash(blocks[1], other) != got[1]


def test_compute_hash_is_an_unsigned_64_bit_int():
    h = BlockManager.compute_hash([1, 2, 3])
    assert isinstance(h, int) and 0 <= h < 2**64
    # usable as a parent: the chain never overflows to_bytes(8)
    assert BlockManager.compute_hash([4], h) == seed_hash([4], h)


def test_hash_blocks_registers_the_chain_of_a_prefilled_prompt():
    bm = BlockManager(num_blocks=6, block_size=4)
    seq = Sequence(list(range(1, 12)), SamplingParams(), block_size=4)  # 2 full blocks + 3 tokens
    assert bm.can_allocate(seq) == 0
    bm.allocate(seq, 0)
    seq.num_scheduled_tokens = seq.num_tokens
    bm.hash_blocks(seq)
    h0 = seed_hash(seq.block(0))
    h1 = seed_hash(seq.block(1), h0)
    assert [bm.blocks[b].hash for b in seq.block_table] == [h0, h1, -1]
    assert bm.hash_to_block_id == {h0: seq.block_table[0], h1: seq.block_table[1]}
    assert bm.blocks[seq.block_table[1]].token_ids == [5, 6, 7, 8]


def test_hash_blocks_continues_the_chain_across_chunks():
    B = 4
    whole = BlockManager(num_blocks=4, block_size=B)
    chunked = BlockManager(num_blocks=4, block_size=B)
    prompt = list(range(1, 14))
    a = Sequence(prompt, block_size=B)
    b = Sequence(prompt, block_size=B)
    whole.allocate(a, 0)
    a.num_scheduled_tokens = a.num_tokens
    whole.hash_blocks(a)
    chunked.allocate(b, 0)
    for n in (3, 3, 5, 2):  # chunk boundaries inside blocks
        b.num_scheduled_tokens = n
        chunked.hash_blocks(b)
        b.num_cached_tokens += n
    assert [whole.blocks[i].hash for i in a.block_table] == [chunked.blocks[i].hash for i in b.block_table]
    assert whole.hash_to_block_id == chunked.hash_to_block_id


def _finished(bm: BlockManager, prompt: list[int], B: int) -> Sequence:
    seq = Sequence(prompt, block_size=B)
    bm.allocate(seq, bm.can_allocate(seq))
    seq.num_scheduled_tokens = seq.num_tokens - seq.num_cached_tokens
    bm.hash_blocks(seq)
    seq.num_cached_tokens = seq.num_tokens
    return seq


def test_can_allocate_never_probes_the_last_block():
    """nano-vllm #144: a block-aligned prompt that is fully cached still recomputes its last block."""
    bm = BlockManager(num_blocks=4, block_size=2)
    a = _finished(bm, [1, 2, 3, 4], 2)
    bm.deallocate(a)
    b = Sequence([1, 2, 3, 4], block_size=2)
    assert bm.can_allocate(b) == 1


def test_hit_on_free_block_still_needs_a_free_block():
    bm = BlockManager(num_blocks=3, block_size=2)
    a = _finished(bm, [1, 2, 3, 4, 5], 2)  # 3 blocks: all of the pool
    bm.deallocate(a)
    b = Sequence([1, 2, 3, 4, 9], block_size=2)
    assert bm.can_allocate(b) == 2  # blocks 0 and 1 hit, both free: 3 free blocks needed, 3 there
    bm.allocate(Sequence([7, 7], block_size=2), 0)  # takes the head of the free queue (a's unhashed tail)
    free_before = list(bm.free_block_ids)
    assert bm.can_allocate(b) == -1  # both hits still sit in the free queue: 3 needed, 2 left
    assert list(bm.free_block_ids) == free_before  # can_allocate changes nothing


def test_hit_on_used_block_is_shared_for_free():
    bm = BlockManager(num_blocks=4, block_size=2)
    a = _finished(bm, [1, 2, 3, 4, 5], 2)  # still running: holds 3 of 4 blocks
    c = Sequence([1, 2, 3, 4, 6], block_size=2)
    assert bm.can_allocate(c) == 2  # 2 shared hits + 1 new block: fits in the 1 free block
    bm.allocate(c, 2)
    assert c.block_table[:2] == a.block_table[:2]
    assert [bm.blocks[i].ref_count for i in c.block_table] == [2, 2, 1]
    assert c.num_cached_tokens == 4
    assert not bm.free_block_ids


def test_allocate_pops_oldest_free_block_and_evicts_only_its_own_map_entry():
    """Seed 000, question 2: a stale block being reused must not delete the entry of its duplicate."""
    B = 2
    bm = BlockManager(num_blocks=4, block_size=B)
    a = Sequence([1, 2, 3], block_size=B)
    b = Sequence([1, 2, 3], block_size=B)
    bm.allocate(a, 0)
    bm.allocate(b, 0)  # admitted before a's blocks were hashed: duplicates (nano-vllm #219)
    for seq in (a, b):
        seq.num_scheduled_tokens = seq.num_tokens
        bm.hash_blocks(seq)
    h = seed_hash([1, 2])
    stale, owner = a.block_table[0], b.block_table[0]
    assert bm.hash_to_block_id[h] == owner  # the later registration wins
    bm.deallocate(a)
    bm.deallocate(b)
    # reuse every free block whose turn comes before `owner`: the stale one must not evict owner's entry
    while bm.free_block_ids[0] != owner:
        popped = bm._allocate_block()
        assert bm.blocks[popped].hash == -1
        assert bm.hash_to_block_id.get(h) == owner, f"reusing block {popped} dropped block {owner}'s entry"
    assert stale not in bm.free_block_ids  # the stale duplicate was reused on the way
    bm._allocate_block()
    assert h not in bm.hash_to_block_id  # reusing the owner evicts its entry


def test_deallocate_releases_in_reverse_order_and_keeps_content():
    bm = BlockManager(num_blocks=5, block_size=2)
    a = _finished(bm, [1, 2, 3, 4, 5], 2)
    table = list(a.block_table)
    hashes = [bm.blocks[i].hash for i in table]
    bm.deallocate(a)
    assert list(bm.free_block_ids)[-3:] == table[::-1]
    assert [bm.blocks[i].hash for i in table] == hashes  # freed blocks keep hash and tokens
    assert a.block_table == [] and a.num_cached_tokens == 0
