import pytest
import torch
from hypothesis import given, strategies as st

from blockviz.layers.sampler import argmax_rows

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
