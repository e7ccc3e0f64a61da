import pytest
import torch

from blockviz.models.config import Qwen3Config
from blockviz.utils.context import reset_context

TINY = dict(vocab_size=97, hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, head_dim=16, max_position_embeddings=256, rope_theta=10000.0,
            attention_bias=False, tie_word_embeddings=True)


@pytest.fixture(autouse=True)
def _clean_context():
    yield
    reset_context()


@pytest.fixture
def tiny() -> dict:
    """config.json keys of a tiny Qwen3 (GQA, q/k norm, tied embeddings)."""
    return dict(TINY)


@pytest.fixture
def tiny_config(tiny: dict) -> Qwen3Config:
    return Qwen3Config(**tiny)


def _randomize(model: torch.nn.Module, seed: int = 0) -> None:
    # Random norms and biases too, so a swapped or skipped parameter changes the logits.
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=gen) * 0.2 + (1.0 if p.dim() == 1 else 0.0))


@pytest.fixture
def randomize():
    return _randomize
