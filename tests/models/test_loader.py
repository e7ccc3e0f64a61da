import pytest
import torch
from safetensors.torch import save_file

from blockviz.models.config import Qwen3Config
from blockviz.models.qwen3 import Qwen3ForCausalLM
from blockviz.utils.loader import checkpoint_tensors, load_model


def save(model: Qwen3ForCausalLM, folder, **overrides) -> None:
    tensors = checkpoint_tensors(model)
    tensors.update(overrides)
    save_file({n: t for n, t in tensors.items() if t is not None}, str(folder / "model.safetensors"))


def test_round_trip_and_fp16_storage(tiny_config: Qwen3Config, randomize, tmp_path):
    source = Qwen3ForCausalLM(tiny_config)
    randomize(source)
    save(source, tmp_path)
    target = Qwen3ForCausalLM(tiny_config)
    load_model(target, tmp_path)
    for (name, a), (_, b) in zip(source.named_parameters(), target.named_parameters()):
        assert torch.equal(a, b), name
    assert target.lm_head.weight is target.model.embed_tokens.weight

    save(source, tmp_path, **{n: t.half() for n, t in checkpoint_tensors(source).items()})
    load_model(target, tmp_path)
    assert target.model.norm.weight.dtype == torch.float32


def test_missing_weights_are_a_clear_error(tiny_config: Qwen3Config, tmp_path):
    model = Qwen3ForCausalLM(tiny_config)
    with pytest.raises(FileNotFoundError, match="no \\*.safetensors file in model folder"):
        load_model(model, tmp_path)
    with pytest.raises(FileNotFoundError, match="model weights not found"):
        load_model(model, tmp_path / "nowhere")


def test_corrupt_file_is_a_clear_error(tiny_config: Qwen3Config, tmp_path):
    (tmp_path / "model.safetensors").write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not a header}")
    with pytest.raises(ValueError, match="not a valid safetensors file"):
        load_model(Qwen3ForCausalLM(tiny_config), tmp_path)


def test_mismatch_is_reported_and_nothing_is_half_loaded(tiny_config: Qwen3Config, randomize, tmp_path):
    source = Qwen3ForCausalLM(tiny_config)
    randomize(source)
    save(source, tmp_path, **{"model.norm.weight": None, "model.layers.0.mlp.up_proj.weight": torch.zeros(3, 3),
                              "model.extra.weight": torch.zeros(1)})
    target = Qwen3ForCausalLM(tiny_config)
    before = {n: p.detach().clone() for n, p in target.named_parameters()}
    with pytest.raises(ValueError) as err:
        load_model(target, tmp_path)
    message = str(err.value)
    assert "missing tensors: model.norm.weight" in message
    assert "unexpected tensors: model.extra.weight" in message
    assert "model.layers.0.mlp.up_proj.weight: checkpoint (3, 3), model (48, 32)" in message
    for name, p in target.named_parameters():
        assert torch.equal(p, before[name]), f"{name} changed by a failed load"


def test_integer_weights_are_refused(tiny_config: Qwen3Config, tmp_path):
    source = Qwen3ForCausalLM(tiny_config)
    save(source, tmp_path, **{"model.layers.0.mlp.up_proj.weight": torch.zeros(48, 32, dtype=torch.int8)})
    with pytest.raises(ValueError, match=r"not floating-point: model.layers.0.mlp.up_proj.weight \(torch.int8\)"):
        load_model(Qwen3ForCausalLM(tiny_config), tmp_path)


def test_checkpoint_names_are_huggingface_names_and_fill_the_packed_shards(tiny_config: Qwen3Config, randomize):
    model = Qwen3ForCausalLM(tiny_config)
    randomize(model)
    tensors = checkpoint_tensors(model)
    layer = "model.layers.0."
    assert {n[len(layer):] for n in tensors if n.startswith(layer)} == {
        "input_layernorm.weight", "post_attention_layernorm.weight", "self_attn.q_proj.weight",
        "self_attn.k_proj.weight", "self_attn.v_proj.weight", "self_attn.o_proj.weight",
        "self_attn.q_norm.weight", "self_attn.k_norm.weight", "mlp.gate_proj.weight", "mlp.up_proj.weight",
        "mlp.down_proj.weight"}
    assert "lm_head.weight" not in tensors  # tied: stored once, as the embedding
    attn, mlp = model.model.layers[0].self_attn, model.model.layers[0].mlp
    q, k, v = tensors[layer + "self_attn.q_proj.weight"], tensors[layer + "self_attn.k_proj.weight"], \
        tensors[layer + "self_attn.v_proj.weight"]
    assert torch.equal(torch.cat([q, k, v]), attn.qkv_proj.weight)
    assert (q.size(0), k.size(0)) == (attn.q_size, attn.kv_size)
    gate, up = tensors[layer + "mlp.gate_proj.weight"], tensors[layer + "mlp.up_proj.weight"]
    assert torch.equal(torch.cat([gate, up]), mlp.gate_up_proj.weight)


def test_a_missing_shard_of_a_packed_weight_is_named(tiny_config: Qwen3Config, randomize, tmp_path):
    source = Qwen3ForCausalLM(tiny_config)
    randomize(source)
    save(source, tmp_path, **{"model.layers.1.self_attn.k_proj.weight": None})
    target = Qwen3ForCausalLM(tiny_config)
    before = target.model.layers[1].self_attn.qkv_proj.weight.detach().clone()
    with pytest.raises(ValueError, match=r"missing tensors: model.layers.1.self_attn.k_proj.weight$"):
        load_model(target, tmp_path)
    assert torch.equal(target.model.layers[1].self_attn.qkv_proj.weight, before)
