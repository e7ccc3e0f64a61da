"""The engine's kv_bytes_per_block, compiled from its file and run without torch, gives what the
imported function gives for every dtype and config; the units and the traffic command never import
torch."""
import subprocess
import sys

import pytest
import torch
from hypothesis import given, settings, strategies as st

from blockviz.engine import model_runner
from blockviz.models.config import DTYPE_NAMES, Qwen3Config
from blockviz.traffic.kv_bytes import DtypeWidth, engine_kv_bytes_per_block
from blockviz.traffic.units import MODELS, model


def config(layers: int, kv_heads: int, head_dim: int | None, dtype: str) -> Qwen3Config:
    heads = kv_heads * 2
    return Qwen3Config.from_dict({"num_hidden_layers": layers, "num_key_value_heads": kv_heads,
                                  "num_attention_heads": heads, "hidden_size": 64 * heads, "head_dim": head_dim,
                                  "torch_dtype": dtype, "vocab_size": 1000, "intermediate_size": 256}, runnable=False)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 96), st.integers(1, 16), st.sampled_from([None, 64, 128, 256]), st.sampled_from(DTYPE_NAMES),
       st.integers(1, 1024))
def test_the_compiled_function_is_the_engines(layers, kv_heads, head_dim, dtype, block_size):
    c = config(layers, kv_heads, head_dim, dtype)
    assert engine_kv_bytes_per_block()(c, block_size, dtype) == \
           model_runner.kv_bytes_per_block(c, block_size, model_runner.DTYPES[dtype])


def test_it_is_compiled_from_the_engines_own_lines():
    code, real = engine_kv_bytes_per_block().__code__, model_runner.kv_bytes_per_block.__code__
    assert (code.co_filename, code.co_firstlineno, code.co_names, code.co_consts) == \
           (real.co_filename, real.co_firstlineno, real.co_names, real.co_consts)


@pytest.mark.parametrize("name", MODELS)
def test_shipped_models_agree_with_torch(name):
    m = model(name)
    assert m.kv_bytes_per_token == model_runner.kv_bytes_per_block(m.config, 1, model_runner.DTYPES[m.config.torch_dtype])


def test_the_width_of_each_dtype_is_torchs():
    for name in DTYPE_NAMES:
        assert DtypeWidth(name).element_size() == torch.empty((), dtype=getattr(torch, name)).element_size()
    with pytest.raises(ValueError, match="dtype must be one of"):
        DtypeWidth("int8")


def test_units_and_the_traffic_command_leave_torch_out():
    probe = ("import sys; from blockviz.traffic import units; units.model('qwen3-8b'); "
             "from blockviz.commands import traffic; assert 'torch' not in sys.modules, 'torch imported'")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
