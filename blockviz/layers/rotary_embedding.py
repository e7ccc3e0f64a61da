import torch
from torch import nn


def apply_rotary_emb(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    # "Rotate half" layout (HF Llama/Qwen): dims i and i + d/2 form one rotating pair,
    # y1 = x1 * cos - x2 * sin and y2 = x2 * cos + x1 * sin (nano-vllm's lines). Here cos and sin
    # come full width, [cos, cos] and [-sin, sin], so both halves are one sum over the whole head:
    # three ops and a cat instead of six and a cat (each op is a torch call, most of a small
    # model's step), and bit for bit the same numbers (x1 * cos + x2 * -sin == x1 * cos - x2 * sin).
    x32 = x.float()
    x1, x2 = torch.chunk(x32, 2, dim=-1)
    return (x32 * cos + torch.cat((x2, x1), dim=-1) * sin).to(x.dtype)


class RotaryEmbedding(nn.Module):

    def __init__(self, head_size: int, max_position_embeddings: int, base: float) -> None:
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, head_size, 2, dtype=torch.float) / head_size))
        t = torch.arange(max_position_embeddings, dtype=torch.float)
        freqs = torch.outer(t, inv_freq)
        # [max_pos, 1, 2 * head_size]: one row per position, broadcast over heads; cos and sin each
        # full width, laid out as apply_rotary_emb takes them.
        cos, sin = freqs.cos(), freqs.sin()
        cache = torch.cat((cos, cos, -sin, sin), dim=-1).unsqueeze_(1)
        self.register_buffer("cos_sin_cache", cache, persistent=False)

    def forward(
        self,
        positions: torch.Tensor,
        query: torch.Tensor,
        key: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        # The rotation depends on the token's position in its sequence, never on its slot in the KV
        # pool: that is why a cached block can be reused by another request with the same prefix.
        cos, sin = self.cos_sin_cache[positions].chunk(2, dim=-1)
        return apply_rotary_emb(query, cos, sin), apply_rotary_emb(key, cos, sin)


def get_rope(
    head_size: int,
    max_position: int,
    base: float,
    rope_scaling: dict | None = None,
) -> RotaryEmbedding:
    # Like nano-vllm, only plain RoPE: a scaled variant would silently give wrong logits.
    if rope_scaling is not None and rope_scaling.get("rope_type", rope_scaling.get("type")) not in (None, "default"):
        raise NotImplementedError(f"rope_scaling={rope_scaling!r} is not supported (only default RoPE)")
    return RotaryEmbedding(head_size, max_position, base)
