"""A checkpoint saved by transformers runs through blockviz's paged ModelRunner (prefill, then
decode through block tables) with the same logits as transformers, in fp32."""
import pytest
import torch
from tokenizers import Tokenizer, models

from blockviz.config import Config
from blockviz.engine.model_runner import ModelRunner, gpu_kv_budget
from blockviz.engine.sequence import Sequence
from blockviz.llm import LLM, SlotRecordingRunner
from blockviz.models.config import Qwen3Config
from blockviz.sampling_params import SamplingParams
from tests.engine.tiny_model import step_logits

transformers = pytest.importorskip("transformers")

VOCAB = 101


def save_checkpoint(folder, arch: str):
    torch.manual_seed(0)
    sizes = dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                 num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128)
    if arch == "qwen3":
        model = transformers.Qwen3ForCausalLM(transformers.Qwen3Config(**sizes, head_dim=16, tie_word_embeddings=True))
    else:  # Qwen2 layout: qkv bias, no q/k norm
        model = transformers.Qwen2ForCausalLM(transformers.Qwen2Config(**sizes, tie_word_embeddings=False))
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0, 0.2)
    model.eval().save_pretrained(folder)
    Tokenizer(models.WordLevel({f"w{i}": i for i in range(VOCAB)}, unk_token="w0")).save(str(folder / "tokenizer.json"))
    return model


@pytest.mark.parametrize("arch", ["qwen3", "qwen2"])
@pytest.mark.parametrize("block_size", [1, 4, 16])
def test_prefill_and_decode_logits_match_transformers(tmp_path, arch, block_size):
    reference = save_checkpoint(tmp_path, arch)
    config = Config(str(tmp_path), kvcache_block_size=block_size, num_kvcache_blocks=64)
    runner = ModelRunner(config, Qwen3Config.from_pretrained(tmp_path), torch.device("cpu"))
    prompt = torch.randint(0, VOCAB, (11,), generator=torch.Generator().manual_seed(2)).tolist()
    seq = Sequence(prompt, SamplingParams(temperature=0, max_tokens=4), block_size=block_size)
    seq.block_table = list(range(63, 63 - seq.num_blocks, -1))  # a scattered, descending table
    seq.num_scheduled_tokens = len(prompt)
    with torch.no_grad():
        prefill = step_logits(runner, [seq], True)[0]
        expected = reference(torch.tensor([prompt])).logits[0, -1]
    torch.testing.assert_close(prefill, expected, atol=1e-4, rtol=1e-4)
    for token in (5, 17, 99):  # decode: one new token a step, keys read back through the table
        seq.num_cached_tokens = len(seq)
        seq.append_token(token)
        if len(seq) > len(seq.block_table) * block_size:
            seq.block_table.append(min(seq.block_table) - 1)
        with torch.no_grad():
            decode = step_logits(runner, [seq], False)[0]
            expected = reference(torch.tensor([seq.token_ids])).logits[0, -1]
        torch.testing.assert_close(decode, expected, atol=1e-4, rtol=1e-4)


def test_llm_generates_transformers_greedy_tokens(tmp_path):
    reference = save_checkpoint(tmp_path, "qwen3")
    prompt = list(range(3, 15))
    expected = reference.generate(torch.tensor([prompt]), max_new_tokens=6, do_sample=False,
                                  eos_token_id=None, pad_token_id=0)[0, len(prompt):].tolist()
    llm = LLM(tmp_path, device="cpu", kvcache_block_size=4, num_kvcache_blocks=32)
    out = llm.generate([prompt], SamplingParams(temperature=0, max_tokens=6, ignore_eos=True))
    assert out[0]["token_ids"] == expected


def test_warmup_batch_runs_before_the_pool_exists(tmp_path):
    """The warmup nano-vllm runs on CUDA before sizing the pool: sequences without block tables
    and no KV cache bound. Checked here on CPU through the same code path."""
    save_checkpoint(tmp_path, "qwen3")
    config = Config(str(tmp_path), kvcache_block_size=4, num_kvcache_blocks=8, max_model_len=32,
                    max_num_batched_tokens=96)
    runner = SlotRecordingRunner(config, Qwen3Config.from_pretrained(tmp_path), torch.device("cpu"))
    for module in runner.model.modules():  # as before allocate_kv_cache: no pool bound
        if hasattr(module, "k_cache"):
            module.k_cache = module.v_cache = torch.tensor([])
    seqs = [Sequence([0] * 32, block_size=4) for _ in range(3)]
    for seq in seqs:
        seq.num_scheduled_tokens = 32
    assert len(runner.run(seqs, True)) == 3
    assert runner.last_slot_mapping == []


def test_bfloat16_keeps_the_rope_cache_in_float32(tmp_path):
    """The dtype CUDA runs in, checked on CPU: weights and pool in bfloat16, RoPE's cos/sin exact
    (a blanket `.to(bfloat16)` would round them), logits within bfloat16 error of fp32's."""
    reference = save_checkpoint(tmp_path, "qwen3")
    hf_config = Qwen3Config.from_pretrained(tmp_path)
    runners = {dtype: ModelRunner(Config(str(tmp_path), kvcache_block_size=4, num_kvcache_blocks=16), hf_config,
                                  torch.device("cpu"), dtype=dtype) for dtype in ("float32", "bfloat16")}
    half = runners["bfloat16"]
    assert {p.dtype for p in half.model.parameters()} == {torch.bfloat16}
    assert half.kv_cache.dtype == torch.bfloat16
    assert half.block_bytes * 2 == runners["float32"].block_bytes
    rope = [m.cos_sin_cache for m in half.model.modules() if hasattr(m, "cos_sin_cache")]
    assert rope and all(cache.dtype == torch.float32 for cache in rope)
    assert torch.get_default_dtype() == torch.float32  # building under bfloat16 leaves no trace
    prompt = list(range(3, 14))
    logits = {}
    for dtype, runner in runners.items():
        seq = Sequence(prompt, block_size=4)
        seq.block_table = [9, 2, 5]
        seq.num_scheduled_tokens = len(prompt)
        logits[dtype] = step_logits(runner, [seq], True)[0].float()
    with torch.no_grad():
        expected = reference(torch.tensor([prompt])).logits[0, -1]
    torch.testing.assert_close(logits["float32"], expected, atol=1e-4, rtol=1e-4)
    scale = expected.abs().max().item()
    assert (logits["bfloat16"] - expected).abs().max().item() < 0.03 * scale
    # a chunked prefill reads the first chunk's keys back from the bfloat16 pool
    seq = Sequence(prompt, block_size=4)
    seq.block_table = [9, 2, 5]
    seq.num_scheduled_tokens = 8
    step_logits(half, [seq], True)
    seq.num_cached_tokens, seq.num_scheduled_tokens = 8, len(prompt) - 8
    chunked = step_logits(half, [seq], True)[0].float()
    assert (chunked - expected).abs().max().item() < 0.03 * scale


def test_unknown_dtype_is_refused_before_loading(tmp_path):
    save_checkpoint(tmp_path, "qwen3")
    with pytest.raises(ValueError, match="dtype must be one of"):
        ModelRunner(Config(str(tmp_path), num_kvcache_blocks=4), Qwen3Config.from_pretrained(tmp_path),
                    torch.device("cpu"), dtype="int8")


def test_gpu_budget_leaves_room_for_the_activation_peak():
    gib = 2**30
    # 80 GiB device, 2 GiB used by others, weights 1 GiB (current), warmup peak 5 GiB
    budget = gpu_kv_budget(total=80 * gib, free=77 * gib, peak=5 * gib, current=1 * gib, utilization=0.9)
    assert budget == int(80 * gib * 0.9) - 3 * gib - 4 * gib
