"""config.json values of the wrong type or range are named before torch or the engine sees them."""
import json

import pytest

from blockviz.llm import LLM
from blockviz.models import DEFAULT_MODEL_DIR
from blockviz.models.config import QWEN3_0_6B, Qwen3Config


@pytest.mark.parametrize("key, value, message", [
    ("hidden_size", "256", "hidden_size must be a whole number"),
    ("hidden_size", 32.0, "hidden_size must be a whole number"),
    ("num_hidden_layers", 0, "num_hidden_layers"),
    ("vocab_size", True, "vocab_size"),
    ("num_key_value_heads", 3, "not a multiple of num_key_value_heads"),
    ("head_dim", -1, "head_dim"),
    ("torch_dtype", "int8", "torch_dtype must be one of 'float32', 'bfloat16', 'float16'"),
    ("eos_token_id", 1e9, "eos_token_id must be a whole number"),
    ("eos_token_id", 10**9, r"eos_token_id must be a whole number in 0\.\.96"),
    ("eos_token_id", -1, "eos_token_id"),
    ("rms_norm_eps", 0, "rms_norm_eps"),
    ("rope_theta", "big", "rope_theta"),
    ("hidden_act", "gelu", "hidden_act"),
    ("attention_bias", "false", "attention_bias must be True or False"),
    ("rope_scaling", [1], "rope_scaling"),
    ("architectures", [3], "architectures"),
])
def test_bad_values_are_named(tiny, key, value, message):
    with pytest.raises(ValueError, match=message):
        Qwen3Config.from_dict({**tiny, key: value})


def test_good_configs_still_load(tiny):
    assert Qwen3Config.from_dict(QWEN3_0_6B).eos_token_id == 151645
    assert Qwen3Config.from_dict({**tiny, "eos_token_id": [5, 6], "torch_dtype": None}).eos_token_id == 5
    assert Qwen3Config.from_dict({**tiny, "architectures": "Qwen3ForCausalLM"}).architectures == ("Qwen3ForCausalLM",)


def test_a_bad_config_json_stops_the_llm_with_the_file_named(tmp_path):
    for item in DEFAULT_MODEL_DIR.iterdir():
        if item.is_file():
            (tmp_path / item.name).symlink_to(item)
    config = json.loads((DEFAULT_MODEL_DIR / "config.json").read_text(encoding="utf-8"))
    (tmp_path / "config.json").unlink()
    (tmp_path / "config.json").write_text(json.dumps({**config, "hidden_size": "256"}), encoding="utf-8")
    with pytest.raises(ValueError, match="config.json: hidden_size must be a whole number"):
        LLM(tmp_path, device="cpu", num_kvcache_blocks=8)
