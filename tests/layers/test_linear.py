import pytest
import torch
import torch.nn.functional as F

from blockviz.layers.activation import SiluAndMul
from blockviz.layers.linear import MergedLinear, QKVLinear


def test_qkv_shards_are_the_packed_rows_in_order():
    qkv = QKVLinear(hidden_size=8, head_size=2, num_heads=4, num_kv_heads=1, bias=True)
    assert qkv.weight.shape == (12, 8) and qkv.bias.shape == (12,)
    rows = {shard_id: qkv.shard(qkv.weight, shard_id) for shard_id in "qkv"}
    assert [r.shape[0] for r in rows.values()] == [8, 2, 2]
    starts = [r.data_ptr() - qkv.weight.data_ptr() for r in rows.values()]
    assert starts == [0, 8 * 8 * 4, 10 * 8 * 4]  # byte offsets of rows 0, 8, 10 (float32)
    assert qkv.shard(qkv.bias, "v").shape == (2,)
    with pytest.raises(ValueError):
        qkv.shard(qkv.weight, "o")


def test_one_packed_matmul_equals_the_separate_projections():
    gen = torch.Generator().manual_seed(0)
    merged = MergedLinear(6, [5, 3], bias=True)
    parts = [torch.randn(5, 6, generator=gen), torch.randn(3, 6, generator=gen)]
    biases = [torch.randn(5, generator=gen), torch.randn(3, generator=gen)]
    with torch.no_grad():
        for i in range(2):
            merged.shard(merged.weight, i).copy_(parts[i])
            merged.shard(merged.bias, i).copy_(biases[i])
    x = torch.randn(4, 6, generator=gen)
    expected = torch.cat([F.linear(x, w, b) for w, b in zip(parts, biases)], dim=-1)
    torch.testing.assert_close(merged(x), expected)


def test_silu_and_mul_splits_packed_gate_and_up():
    gate, up = torch.randn(3, 4), torch.randn(3, 4)
    torch.testing.assert_close(SiluAndMul()(torch.cat([gate, up], dim=-1)), F.silu(gate) * up)
