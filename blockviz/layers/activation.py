import torch
import torch.nn.functional as F
from torch import nn


class SiluAndMul(nn.Module):
    # SwiGLU on the packed [gate | up] rows of gate_up_proj: silu(gate) * up.

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x, y = x.chunk(2, -1)
        return F.silu(x) * y
