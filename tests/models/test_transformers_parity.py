"""A tiny random checkpoint saved by transformers loads into blockviz and gives the same logits.

transformers is a test-only dependency; the test is skipped without it.
"""
import pytest
import torch

from blockviz.models.config import Qwen3Config
from blockviz.models.qwen3 import Qwen3ForCausalLM
from blockviz.utils.loader import checkpoint_tensors, load_model

transformers = pytest.importorskip("transformers")

SIZES = dict(vocab_size=97, hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4,
             num_key_value_heads=2, max_position_embeddings=256)


def hf_model(arch: str, randomize) -> torch.nn.Module:
    torch.manual_seed(0)
    if arch == "qwen3":
        config = transformers.Qwen3Config(**SIZES, head_dim=16, tie_word_embeddings=True)
        model = transformers.Qwen3ForCausalLM(config)
    else:  # Qwen2: qkv bias, no q/k norm, untied head, no head_dim key
        model = transformers.Qwen2ForCausalLM(transformers.Qwen2Config(**SIZES, tie_word_embeddings=False))
    randomize(model)
    return model.eval()


@pytest.mark.parametrize("arch", ["qwen3", "qwen2"])
def test_logits_match_transformers(arch: str, randomize, tmp_path):
    reference = hf_model(arch, randomize)
    reference.save_pretrained(tmp_path)
    model = Qwen3ForCausalLM(Qwen3Config.from_pretrained(tmp_path))
    load_model(model, tmp_path)
    tokens = torch.randint(0, SIZES["vocab_size"], (2, 13), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        expected = reference(tokens).logits
        actual = model.forward_dense(tokens)
    torch.testing.assert_close(actual, expected, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("arch", ["qwen3", "qwen2"])
def test_blockviz_checkpoint_loads_into_transformers(arch: str, randomize, tmp_path):
    # The other way: packed qkv_proj / gate_up_proj are saved split under HuggingFace's names.
    reference = hf_model(arch, randomize)
    reference.save_pretrained(tmp_path)
    model = Qwen3ForCausalLM(Qwen3Config.from_pretrained(tmp_path))
    randomize(model, seed=1)
    loaded = reference.load_state_dict(checkpoint_tensors(model), strict=False)
    assert not loaded.unexpected_keys
    assert loaded.missing_keys == (["lm_head.weight"] if arch == "qwen3" else [])  # tied to the embedding
    tokens = torch.randint(0, SIZES["vocab_size"], (2, 13), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        torch.testing.assert_close(model.forward_dense(tokens), reference(tokens).logits, atol=1e-4, rtol=1e-4)
