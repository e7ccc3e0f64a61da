import torch
import torch.nn.functional as F

from blockviz.layers.layernorm import RMSNorm


def test_float32_norm_with_the_weight_inside_equals_norm_then_weight():
    gen = torch.Generator().manual_seed(0)
    norm = RMSNorm(64, eps=1e-6)
    with torch.no_grad():
        norm.weight.copy_(torch.randn(64, generator=gen))
    for shape in [(5, 64), (32, 4, 64), (300, 64)]:
        x = torch.randn(shape, generator=gen) * 3
        assert torch.equal(norm(x), F.rms_norm(x, (64,), eps=1e-6) * norm.weight)


def test_bfloat16_rounds_before_the_weight_as_huggingface():
    gen = torch.Generator().manual_seed(1)
    norm = RMSNorm(64, eps=1e-6).bfloat16()
    with torch.no_grad():
        norm.weight.copy_(torch.randn(64, generator=gen))
    x = torch.randn(8, 64, generator=gen).bfloat16()
    expected = F.rms_norm(x.float(), (64,), eps=1e-6).bfloat16() * norm.weight
    assert torch.equal(norm(x), expected)
    out, residual = norm(x, x)
    assert torch.equal(residual, x + x) and torch.equal(out, norm(x + x))
