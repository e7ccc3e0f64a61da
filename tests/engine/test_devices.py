"""The same checks on every device this machine has: CPU always, CUDA where present (`bash
bench/gpu.sh` runs this file first on a GPU box). Greedy tokens equal dense decoding in float32,
bfloat16 logits stay within its rounding of float32's, and the pool is sized from the memory
budget (on CUDA: free memory, after nano-vllm's warmup batch)."""
import pytest
import torch

from blockviz.config import Config
from blockviz.engine.model_runner import ModelRunner
from blockviz.engine.sequence import Sequence
from blockviz.llm import LLM
from blockviz.models.config import Qwen3Config
from blockviz.sampling_params import SamplingParams
from tests.engine.tiny_model import dense_greedy, step_logits, write_tiny_model

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
GREEDY = SamplingParams(temperature=0, max_tokens=6, ignore_eos=True)
PROMPTS = [list(range(5, 26)) + [40 + i] * (i + 1) for i in range(4)] + [list(range(5, 21))]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return write_tiny_model(tmp_path_factory.mktemp("tiny"))


@pytest.fixture(scope="module")
def expected(model_dir):
    return [dense_greedy(model_dir, p, GREEDY.max_tokens) for p in PROMPTS]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("block_size, options", [
    (1, {}), (16, {}), (256, {}),
    (4, {"max_num_batched_tokens": 7}),   # chunked prefill
    (4, {"num_kvcache_blocks": 10}),      # preemption
])
def test_float32_paged_tokens_equal_dense(model_dir, expected, device, block_size, options):
    llm = LLM(model_dir, device=device, dtype="float32",
              **{"kvcache_block_size": block_size, "num_kvcache_blocks": 4096 // block_size + 8, **options})
    for _ in range(2):  # the second round hits the first one's cached blocks
        assert [o["token_ids"] for o in llm.generate(PROMPTS, GREEDY)] == expected


@pytest.mark.parametrize("device", DEVICES)
def test_bfloat16_logits_within_rounding_of_float32(model_dir, device):
    hf_config = Qwen3Config.from_pretrained(model_dir)
    prompt = PROMPTS[0]
    logits = {}
    for dtype in ("float32", "bfloat16"):
        runner = ModelRunner(Config(str(model_dir), kvcache_block_size=4, num_kvcache_blocks=16), hf_config,
                             torch.device(device), dtype=dtype)
        seq = Sequence(prompt, block_size=4)
        seq.block_table = [11, 3, 7, 0, 14, 9, 2]
        seq.num_scheduled_tokens = 12
        step_logits(runner, [seq], True)
        seq.num_cached_tokens, seq.num_scheduled_tokens = 12, len(prompt) - 12  # the rest reads the pool
        logits[dtype] = step_logits(runner, [seq], True)[0].float().cpu()
    error = (logits["bfloat16"] - logits["float32"]).abs().max().item()
    assert error < 0.05 * logits["float32"].abs().max().item()


@pytest.mark.parametrize("device", DEVICES)
def test_pool_is_sized_from_the_memory_budget(model_dir, device):
    budget = 2**30
    if device == "cuda":  # one GiB above what the device uses now; the warmup peak comes off it
        free, total = torch.cuda.mem_get_info()
        options = {"gpu_memory_utilization": (total - free + budget) / total}
    else:
        options = {"kv_cache_memory": budget}
    llm = LLM(model_dir, device=device, kvcache_block_size=256, **options)
    pool_bytes = llm.config.num_kvcache_blocks * llm.model_runner.block_bytes
    assert budget // 2 < pool_bytes <= budget
    assert llm.model_runner.kv_cache.numel() * llm.model_runner.kv_cache.element_size() == pool_bytes
    assert f"{llm.config.num_kvcache_blocks} blocks" in llm.pool_summary and device in llm.pool_summary
    assert len(llm.generate(PROMPTS[:1], GREEDY)[0]["token_ids"]) == GREEDY.max_tokens
