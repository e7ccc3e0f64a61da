import torch
from torch import nn


class Sampler(nn.Module):

    def __init__(self, generator: torch.Generator):
        super().__init__()
        self.generator = generator

    def forward(self, logits: torch.Tensor, temperatures: torch.Tensor):
        greedy_tokens = argmax_rows(logits)
        if not bool((temperatures > 0).any()):
            return greedy_tokens
        logits = logits.float() / temperatures.clamp_min(1e-5).unsqueeze(dim=1)
        probs = torch.softmax(logits, dim=-1)
        sample_tokens = argmax_rows(probs.div_(torch.empty_like(probs).exponential_(1, generator=self.generator).clamp_min_(1e-10)))
        return torch.where(temperatures > 0, sample_tokens, greedy_tokens)


# numpy takes these dtypes as they are (bfloat16 it has not).
NUMPY_FLOATS = (torch.float16, torch.float32, torch.float64)


def argmax_rows(x: torch.Tensor) -> torch.Tensor:
    """x.argmax(dim=-1): per row the index of the largest entry, the first one on a tie (or the first
    NaN). On CPU numpy computes it: torch's CPU argmax over the last dim is not vectorised, 0.3 ms
    of a 6 ms decode step at batch 32 over a 4 096-word vocabulary, where numpy's takes 15 µs and
    picks the same index."""
    if x.device.type == "cpu" and x.dtype in NUMPY_FLOATS:
        return torch.from_numpy(x.numpy().argmax(axis=-1))
    return x.argmax(dim=-1)
