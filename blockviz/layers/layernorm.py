import torch
import torch.nn.functional as F
from torch import nn


class RMSNorm(nn.Module):

    def __init__(self, hidden_size: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size))

    def rms_forward(self, x: torch.Tensor) -> torch.Tensor:
        # Normalise in fp32 (as HF and nano-vllm do) so bf16/fp16 weights give the same result.
        # F.rms_norm is x * rsqrt(mean(x²) + eps) in one fused op: nano-vllm fuses the same lines
        # with torch.compile; eagerly they are six ops, most of a small model's step on CPU.
        orig_dtype = x.dtype
        if orig_dtype == self.weight.dtype == torch.float32:
            # Nothing to cast: the weight goes into the same call, which multiplies (x · rsqrt) by
            # it just as the lines below do, bit for bit, with one torch call fewer per norm.
            return F.rms_norm(x, (x.size(-1),), self.weight, eps=self.eps)
        x = F.rms_norm(x.float(), (x.size(-1),), eps=self.eps)
        return x.to(orig_dtype) * self.weight

    def add_rms_forward(self, x: torch.Tensor, residual: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        # Fused residual add, nano-vllm style: the sum becomes the next residual.
        x = x + residual
        return self.rms_forward(x), x

    def forward(
        self,
        x: torch.Tensor,
        residual: torch.Tensor | None = None,
    ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
        if residual is None:
            return self.rms_forward(x)
        return self.add_rms_forward(x, residual)
