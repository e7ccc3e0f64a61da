import torch
import torch.nn.functional as F
from torch import nn

from blockviz.utils.context import get_context


class VocabEmbedding(nn.Embedding):
    # Single-device counterpart of nano-vllm's VocabParallelEmbedding (no vocab sharding).
    pass


class LMHead(nn.Module):

    def __init__(self, num_embeddings: int, embedding_dim: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(num_embeddings, embedding_dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        context = get_context()
        if context.is_prefill:
            # Only the last new token of each sequence samples, so only its logits are computed.
            x = x[context.cu_seqlens_q[1:] - 1]
        return F.linear(x, self.weight)
