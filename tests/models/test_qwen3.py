import pytest
import torch

from blockviz.models.config import Qwen3Config
from blockviz.models.qwen3 import Qwen3ForCausalLM
from blockviz.utils.context import reset_context, set_context


def bind_cache(model: Qwen3ForCausalLM, num_blocks: int, block_size: int) -> torch.Tensor:
    # nano-vllm's layout: one tensor [2, layers, blocks, B, kv_heads, head_dim], views per layer.
    c = model.config
    kv = torch.zeros(2, c.num_hidden_layers, num_blocks, block_size, c.num_key_value_heads, c.head_dim)
    for i, layer in enumerate(model.model.layers):
        layer.self_attn.attn.k_cache, layer.self_attn.attn.v_cache = kv[0, i], kv[1, i]
    return kv


@pytest.mark.parametrize("block_size", [1, 4, 256])
def test_paged_prefill_then_decode_matches_dense(tiny_config: Qwen3Config, randomize, block_size: int):
    torch.manual_seed(0)
    model = Qwen3ForCausalLM(tiny_config)
    randomize(model)
    tokens = torch.randint(0, tiny_config.vocab_size, (11,))
    dense = model.forward_dense(tokens[None])[0]

    num_blocks = 12 // block_size + 3
    bind_cache(model, num_blocks, block_size)
    table = torch.randperm(num_blocks)[: (len(tokens) + block_size - 1) // block_size]
    slot = lambda p: int(table[p // block_size]) * block_size + p % block_size  # noqa: E731
    prompt = 6
    # Prefill the prompt (no prefix cached: no block tables), then decode the rest token by token.
    cu = torch.tensor([0, prompt], dtype=torch.int32)
    set_context(True, cu, cu, prompt, prompt, torch.tensor([slot(p) for p in range(prompt)]))
    logits = [model.compute_logits(model(tokens[:prompt], torch.arange(prompt)))]
    for p in range(prompt, len(tokens)):
        set_context(False, slot_mapping=torch.tensor([slot(p)]), context_lens=torch.tensor([p + 1]),
                    block_tables=table[None])
        logits.append(model.compute_logits(model(tokens[p:p + 1], torch.tensor([p]))))
    reset_context()
    torch.testing.assert_close(torch.cat(logits), dense[prompt - 1:], atol=1e-5, rtol=1e-5)


def test_tied_embeddings_share_one_parameter(tiny: dict):
    model = Qwen3ForCausalLM(Qwen3Config(**tiny))
    assert model.lm_head.weight is model.model.embed_tokens.weight
    untied = Qwen3ForCausalLM(Qwen3Config(**{**tiny, "tie_word_embeddings": False}))
    assert untied.lm_head.weight is not untied.model.embed_tokens.weight


def test_layers_share_one_rope_module_per_model(tiny: dict):
    first, second = Qwen3ForCausalLM(Qwen3Config(**tiny)), Qwen3ForCausalLM(Qwen3Config(**tiny))
    ropes = {id(layer.self_attn.rotary_emb) for layer in first.model.layers}
    assert len(first.model.layers) > 1 and len(ropes) == 1
    assert first.model.layers[0].self_attn.rotary_emb is not second.model.layers[0].self_attn.rotary_emb


def test_attention_bias_means_qwen2_style_without_qk_norm(tiny: dict):
    attn = Qwen3ForCausalLM(Qwen3Config(**{**tiny, "attention_bias": True})).model.layers[0].self_attn
    assert attn.qkv_proj.bias is not None and not hasattr(attn, "q_norm")
    attn = Qwen3ForCausalLM(Qwen3Config(**tiny)).model.layers[0].self_attn
    assert attn.qkv_proj.bias is None and hasattr(attn, "q_norm") and hasattr(attn, "k_norm")


def test_forward_dense_leaves_a_bound_cache_untouched(tiny_config: Qwen3Config):
    model = Qwen3ForCausalLM(tiny_config)
    kv = bind_cache(model, 4, 4)
    model.forward_dense(torch.randint(0, tiny_config.vocab_size, (2, 5)))
    assert not kv.any()


def test_config_errors(tiny: dict, tmp_path):
    with pytest.raises(ValueError, match="unsupported architecture"):
        Qwen3Config.from_dict({**tiny, "architectures": ["LlamaForCausalLM"]})
    with pytest.raises(ValueError, match="missing required keys: vocab_size"):
        Qwen3Config.from_dict({k: v for k, v in tiny.items() if k != "vocab_size"})
    with pytest.raises(FileNotFoundError, match="no config.json"):
        Qwen3Config.from_pretrained(tmp_path)
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        Qwen3Config.from_pretrained(tmp_path)
