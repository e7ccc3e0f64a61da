import torch

from blockviz.layers.rotary_embedding import RotaryEmbedding


def nano_vllm_rotary(x: torch.Tensor, positions: torch.Tensor, head_size: int, base: float) -> torch.Tensor:
    # nano-vllm's formulation: half-width cos/sin and four products per pair.
    inv_freq = 1.0 / (base ** (torch.arange(0, head_size, 2, dtype=torch.float) / head_size))
    freqs = torch.outer(positions.float(), inv_freq)[:, None]
    cos, sin = freqs.cos(), freqs.sin()
    x1, x2 = torch.chunk(x.float(), 2, dim=-1)
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1).to(x.dtype)


def test_full_width_rotation_is_nano_vllms_bit_for_bit():
    rope = RotaryEmbedding(head_size=16, max_position_embeddings=300, base=10000.0)
    gen = torch.Generator().manual_seed(0)
    positions = torch.randint(0, 300, (37,), generator=gen)
    q, k = torch.randn(37, 4, 16, generator=gen), torch.randn(37, 2, 16, generator=gen)
    q_rot, k_rot = rope(positions, q, k)
    assert torch.equal(q_rot, nano_vllm_rotary(q, positions, 16, 10000.0))
    assert torch.equal(k_rot, nano_vllm_rotary(k, positions, 16, 10000.0))
    q16 = q.bfloat16()
    q16_rot, _ = rope(positions, q16, k.bfloat16())
    assert q16_rot.dtype == torch.bfloat16
    assert torch.equal(q16_rot, nano_vllm_rotary(q16, positions, 16, 10000.0))
