import torch
import torch.nn.functional as F
from torch import nn


class SiluAndMul(nn.Module):
    # SwiGLU: silu(gate) * up. nano-vllm passes one packed [gate | up] tensor and chunks it; with
    # gate_proj and up_proj unpacked (models/qwen3.py) they come separately, so nothing is
    # concatenated only to be split again.

    def forward(self, gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
        return F.silu(gate) * up
