import math

import pytest
import torch

from blockviz.layers.attention import Attention, store_kvcache
from blockviz.utils.context import reset_context, set_context

BLOCK_SIZES = [1, 2, 4, 16, 256]
HEADS, KV_HEADS, HEAD_DIM = 4, 2, 8


@pytest.fixture(autouse=True)
def _clean_context():
    yield
    reset_context()


def dense_reference(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """Causal attention of the last len(q) positions of one sequence over all len(k) keys, by hand."""
    group = q.size(1) // k.size(1)
    k, v = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
    scores = torch.einsum("qhd,khd->hqk", q, k) / math.sqrt(q.size(-1))
    shift = k.size(0) - q.size(0)
    future = torch.arange(k.size(0))[None, :] > torch.arange(q.size(0))[:, None] + shift
    scores = scores.masked_fill(future, float("-inf"))
    return torch.einsum("hqk,khd->qhd", scores.softmax(-1), v)


def make_layer(num_blocks: int, block_size: int) -> Attention:
    layer = Attention(HEADS, HEAD_DIM, HEAD_DIM ** -0.5, KV_HEADS)
    # Fill the pool with garbage so a read of a wrong slot shows up.
    layer.k_cache = torch.randn(num_blocks, block_size, KV_HEADS, HEAD_DIM)
    layer.v_cache = torch.randn(num_blocks, block_size, KV_HEADS, HEAD_DIM)
    return layer


def random_block_tables(lengths: list[int], block_size: int, gen: torch.Generator) -> tuple[torch.Tensor, int]:
    """Disjoint random physical blocks per sequence, padded with -1 like nano-vllm's tables."""
    counts = [(n + block_size - 1) // block_size for n in lengths]
    num_blocks = sum(counts) + 3
    perm = torch.randperm(num_blocks, generator=gen).tolist()
    tables, used = [], 0
    for c in counts:
        tables.append(perm[used:used + c] + [-1] * (max(counts) - c))
        used += c
    return torch.tensor(tables), num_blocks


def slots_for(table: list[int], positions: range, block_size: int) -> list[int]:
    return [table[p // block_size] * block_size + p % block_size for p in positions]


def cumsum0(xs: list[int]) -> torch.Tensor:
    return torch.tensor([0] + xs).cumsum(0).to(torch.int32)


@pytest.mark.parametrize("block_size", BLOCK_SIZES)
def test_prefill_with_cached_prefix_equals_dense(block_size: int):
    gen = torch.Generator().manual_seed(block_size)
    torch.manual_seed(block_size)
    total = [7, 19, 5]     # keys per sequence
    cached = [3, 16, 0]    # already in the pool (a prefix hit or an earlier chunk)
    new = [t - c for t, c in zip(total, cached)]
    tables, num_blocks = random_block_tables(total, block_size, gen)
    layer = make_layer(num_blocks, block_size)
    seqs = [(torch.randn(t, HEADS, HEAD_DIM), torch.randn(t, KV_HEADS, HEAD_DIM), torch.randn(t, KV_HEADS, HEAD_DIM))
            for t in total]
    for (_, k, v), table, c in zip(seqs, tables.tolist(), cached):
        slots = torch.tensor(slots_for(table, range(c), block_size), dtype=torch.long)
        store_kvcache(k[:c], v[:c], layer.k_cache, layer.v_cache, slots)

    q = torch.cat([s[0][c:] for s, c in zip(seqs, cached)])
    k = torch.cat([s[1][c:] for s, c in zip(seqs, cached)])
    v = torch.cat([s[2][c:] for s, c in zip(seqs, cached)])
    slot_mapping = torch.tensor(sum((slots_for(t, range(c, n), block_size)
                                     for t, c, n in zip(tables.tolist(), cached, total)), []))
    set_context(True, cumsum0(new), cumsum0(total), max(new), max(total), slot_mapping, None, tables)
    out = layer(q, k, v)

    expected = torch.cat([dense_reference(s[0][c:], s[1], s[2]) for s, c in zip(seqs, cached)])
    torch.testing.assert_close(out, expected, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("block_size", BLOCK_SIZES)
def test_decode_equals_dense(block_size: int):
    gen = torch.Generator().manual_seed(100 + block_size)
    torch.manual_seed(100 + block_size)
    lengths = [1, 9, 33, 4]
    tables, num_blocks = random_block_tables(lengths, block_size, gen)
    layer = make_layer(num_blocks, block_size)
    seqs = [(torch.randn(n, HEADS, HEAD_DIM), torch.randn(n, KV_HEADS, HEAD_DIM), torch.randn(n, KV_HEADS, HEAD_DIM))
            for n in lengths]
    for (_, k, v), table, n in zip(seqs, tables.tolist(), lengths):
        slots = torch.tensor(slots_for(table, range(n - 1), block_size), dtype=torch.long)
        store_kvcache(k[:-1], v[:-1], layer.k_cache, layer.v_cache, slots)

    # Decode step: each sequence's last token is new; its slot is block_table[-1] * B + offset.
    q = torch.stack([s[0][-1] for s in seqs])
    k = torch.stack([s[1][-1] for s in seqs])
    v = torch.stack([s[2][-1] for s in seqs])
    slot_mapping = torch.tensor([slots_for(t, range(n - 1, n), block_size)[0] for t, n in zip(tables.tolist(), lengths)])
    set_context(False, slot_mapping=slot_mapping, context_lens=torch.tensor(lengths, dtype=torch.int32),
                block_tables=tables)
    out = layer(q, k, v)

    expected = torch.cat([dense_reference(s[0][-1:], s[1], s[2]) for s in seqs])
    torch.testing.assert_close(out, expected, atol=1e-5, rtol=1e-5)


def test_prefill_without_block_tables_is_plain_causal_attention():
    torch.manual_seed(0)
    lengths = [5, 1, 12]
    seqs = [(torch.randn(n, HEADS, HEAD_DIM), torch.randn(n, KV_HEADS, HEAD_DIM), torch.randn(n, KV_HEADS, HEAD_DIM))
            for n in lengths]
    layer = Attention(HEADS, HEAD_DIM, HEAD_DIM ** -0.5, KV_HEADS)  # no cache bound
    cu = cumsum0(lengths)
    set_context(True, cu, cu, max(lengths), max(lengths))
    out = layer(*(torch.cat([s[i] for s in seqs]) for i in range(3)))
    expected = torch.cat([dense_reference(*s) for s in seqs])
    torch.testing.assert_close(out, expected, atol=1e-5, rtol=1e-5)


def test_prefill_of_equal_lengths_takes_sdpa_causal_path_and_equals_dense():
    """Fresh prompts of one length are attended without padding or mask (is_causal); the result
    must be the same as the by-hand reference, as for the padded path above."""
    torch.manual_seed(1)
    lengths = [6, 6, 6]
    seqs = [(torch.randn(n, HEADS, HEAD_DIM), torch.randn(n, KV_HEADS, HEAD_DIM), torch.randn(n, KV_HEADS, HEAD_DIM))
            for n in lengths]
    layer = Attention(HEADS, HEAD_DIM, HEAD_DIM ** -0.5, KV_HEADS)
    cu = cumsum0(lengths)
    set_context(True, cu, cu, max(lengths), max(lengths))
    out = layer(*(torch.cat([s[i] for s in seqs]) for i in range(3)))
    expected = torch.cat([dense_reference(*s) for s in seqs])
    torch.testing.assert_close(out, expected, atol=1e-5, rtol=1e-5)


def test_store_kvcache_writes_slots_and_skips_minus_one():
    block_size = 4
    k_cache = torch.zeros(3, block_size, KV_HEADS, HEAD_DIM)
    v_cache = torch.zeros(3, block_size, KV_HEADS, HEAD_DIM)
    key = torch.arange(1, 4, dtype=torch.float)[:, None, None].expand(3, KV_HEADS, HEAD_DIM)
    value = -key
    store_kvcache(key, value, k_cache, v_cache, torch.tensor([9, -1, 2]))
    # slot 9 = block 2, offset 1; slot 2 = block 0, offset 2; token 1 (slot -1) is written nowhere.
    assert torch.all(k_cache[2, 1] == 1) and torch.all(v_cache[2, 1] == -1)
    assert torch.all(k_cache[0, 2] == 3) and torch.all(v_cache[0, 2] == -3)
    assert int((k_cache != 0).any(-1).any(-1).sum()) == 2
    assert not torch.any(k_cache == 2)
