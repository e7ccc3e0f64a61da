"""KV bytes a token from the engine's own function, the shipped model configs, sizes in tokens or
bytes, and the prefill FLOPs a cached token saves (against the model blockviz builds)."""
import json

import numpy as np
import pytest

from blockviz.engine.model_runner import kv_bytes_per_block, new_model
from blockviz.models.config import Qwen3Config
from blockviz.traffic.units import CONFIGS, MODELS, model, parse_size, parse_sizes

import torch


@pytest.mark.parametrize("name, layers, kv_heads", [("qwen3-0.6b", 28, 8), ("qwen3-8b", 36, 8),
                                                     ("llama-3.1-8b", 32, 8)])
def test_shipped_models_cite_their_source_and_size_a_token_as_the_engine_does(name, layers, kv_heads):
    m = model(name)
    d = json.loads((CONFIGS / f"{name}.json").read_text())
    assert d["_source"].startswith("https://huggingface.co/") and m.name == MODELS[name]
    assert (m.config.num_hidden_layers, m.config.num_key_value_heads) == (layers, kv_heads)
    assert m.kv_bytes_per_token == kv_bytes_per_block(m.config, 16, torch.bfloat16) // 16
    assert m.kv_bytes_per_token == 2 * layers * kv_heads * 128 * 2


def test_a_config_folder_loads_and_a_runnable_config_still_refuses_llama():
    m = model("blockviz/models/default")
    assert m.kv_bytes_per_token == kv_bytes_per_block(m.config, 1, torch.float32)
    with pytest.raises(ValueError, match="unsupported architecture"):
        Qwen3Config.from_dict(json.loads((CONFIGS / "llama-3.1-8b.json").read_text()))


def test_linear_weights_are_the_built_models_projection_and_mlp_weights():
    m = model("blockviz/models/default")
    built = new_model(m.config, torch.float32)
    counted = sum(p.numel() for name, p in built.named_parameters()
                  if name.endswith("proj.weight") and ".layers." in name)
    assert m.linear_weights == counted


def test_prefill_flops_saved_sum_each_cached_position():
    m = model("qwen3-0.6b")
    c = m.config
    h = 37
    per_position = [2 * m.linear_weights + 4 * c.num_hidden_layers * c.num_attention_heads * 128 * (i + 1)
                    for i in range(h)]
    assert m.prefill_flops_saved(np.array([h, 0])) == pytest.approx(sum(per_position))


def test_sizes_in_tokens_or_bytes():
    per = model("qwen3-8b").kv_bytes_per_token
    assert parse_sizes("1e5,300000,8GiB", per) == [100_000, 300_000, 8 * 2**30 // per]
    assert parse_size("80 GB", per) == 80 * 10**9 // per
    for text, message in [("lots", "not a size"), ("8XB", "unknown unit"), ("2.5", "whole"), ("0", r"1 \.\. 10\*\*12")]:
        with pytest.raises(ValueError, match=message):
            parse_size(text, per)
    with pytest.raises(ValueError, match="give a model"):
        parse_size("8GiB", None)


def test_no_model_names_the_shipped_ones():
    with pytest.raises(ValueError, match="no model 'gpt-5': the shipped ones are qwen3-0.6b"):
        model("gpt-5")
