import pytest
import torch
from hypothesis import given, strategies as st

from blockviz.layers.sampler import Sampler, argmax_rows

# Few distinct values, so rows often tie for the largest; NaN and infinities too.
values = st.sampled_from([0.0, -0.0, 1.0, 2.5, -3.0, float("inf"), float("-inf"), float("nan")])


@given(st.integers(1, 6).flatmap(lambda width: st.lists(st.lists(values, min_size=width, max_size=width),
                                                        min_size=1, max_size=5)))
def test_the_first_largest_of_each_row_as_torch_argmax(rows):
    x = torch.tensor(rows)
    assert torch.equal(argmax_rows(x), x.argmax(dim=-1))


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.bfloat16])
def test_every_model_dtype_and_a_strided_view(dtype):
    x = torch.randn(32, 4096, generator=torch.Generator().manual_seed(0)).to(dtype)
    assert torch.equal(argmax_rows(x), x.argmax(dim=-1))
    assert torch.equal(argmax_rows(x[:, ::3]), x[:, ::3].argmax(dim=-1))
    assert argmax_rows(x).dtype == torch.int64


def sample(logits: torch.Tensor, temperatures: list[float], seed: int) -> list[int]:
    return Sampler(torch.Generator().manual_seed(seed))(logits, torch.tensor(temperatures)).tolist()


def test_temperature_zero_is_greedy_and_a_seed_repeats_its_samples():
    logits = torch.randn(6, 50, generator=torch.Generator().manual_seed(1))
    greedy = logits.argmax(dim=-1).tolist()
    assert sample(logits, [0.0] * 6, seed=0) == greedy
    mixed = [0.0, 1.0, 0.0, 5.0, 0.0, 5.0]
    tokens = sample(logits, mixed, seed=3)
    assert [t for t, temp in zip(tokens, mixed) if temp == 0] == greedy[0::2]
    assert tokens == sample(logits, mixed, seed=3)
    assert len({tuple(sample(logits, [5.0] * 6, seed=s)) for s in range(8)}) > 1  # the seed drives the noise
    assert logits.argmax(dim=-1).tolist() == greedy  # the logits are left as they were


def test_gumbel_max_samples_the_softmax():
    # nano-vllm's trick: argmax(probs / Exp(1) noise) draws token i with probability probs[i]
    logits = torch.tensor([[0.0, 1.0, 2.0]]).repeat(20000, 1)
    tokens = torch.tensor(sample(logits, [1.0] * 20000, seed=0))
    frequencies = torch.bincount(tokens, minlength=3).float() / len(tokens)
    assert torch.allclose(frequencies, torch.softmax(logits[0], dim=-1), atol=0.015)
