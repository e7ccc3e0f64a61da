"""A block's KV bytes, torch-free: each dtype's width is torch's, the runner sizes its pool with the
same function, a hand count agrees, and the traffic command never imports torch."""
import subprocess
import sys

import pytest
import torch
from hypothesis import given, settings, strategies as st

from blockviz.engine import model_runner
from blockviz.models.config import DTYPE_NAMES, Qwen3Config
from blockviz.models.kv_bytes import DTYPE_BYTES, itemsize_of, kv_bytes_per_block
from blockviz.traffic.units import MODELS, model


def config(layers: int, kv_heads: int, head_dim: int | None, dtype: str) -> Qwen3Config:
    heads = kv_heads * 2
    return Qwen3Config.from_dict({"num_hidden_layers": layers, "num_key_value_heads": kv_heads,
                                  "num_attention_heads": heads, "hidden_size": 64 * heads, "head_dim": head_dim,
                                  "torch_dtype": dtype, "vocab_size": 1000, "intermediate_size": 256}, runnable=False)


def test_each_dtype_is_as_wide_as_torch_says():
    assert tuple(DTYPE_BYTES) == DTYPE_NAMES
    for name in DTYPE_NAMES:
        width = torch.empty((), dtype=getattr(torch, name)).element_size()
        assert itemsize_of(name) == itemsize_of(getattr(torch, name)) == width
    with pytest.raises(ValueError, match="dtype must be one of"):
        itemsize_of("int8")


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 96), st.integers(1, 16), st.sampled_from([None, 64, 128, 256]), st.sampled_from(DTYPE_NAMES),
       st.integers(1, 1024))
def test_a_hand_count_of_k_and_v(layers, kv_heads, head_dim, dtype, block_size):
    c = config(layers, kv_heads, head_dim, dtype)
    dims = head_dim or c.hidden_size // c.num_attention_heads
    one_tensor = torch.empty(layers, block_size, kv_heads, dims, dtype=getattr(torch, dtype))   # K or V of a block
    assert kv_bytes_per_block(c, block_size, dtype) == 2 * one_tensor.numel() * one_tensor.element_size()
    assert kv_bytes_per_block(c, block_size, getattr(torch, dtype)) == kv_bytes_per_block(c, block_size, dtype)


def test_the_model_runner_sizes_its_pool_with_it():
    assert model_runner.kv_bytes_per_block is kv_bytes_per_block


@pytest.mark.parametrize("name", MODELS)
def test_shipped_models_in_their_own_dtype(name):
    m = model(name)
    assert m.kv_bytes_per_token == kv_bytes_per_block(m.config, 1, getattr(torch, m.config.torch_dtype))


def test_units_and_the_traffic_command_leave_torch_out():
    probe = ("import sys; from blockviz.traffic import units; units.model('qwen3-8b'); "
             "from blockviz.commands import traffic; assert 'torch' not in sys.modules, 'torch imported'")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
