"""bench/random_checkpoint.py, which bench/gpu.sh uses on a GPU box with no checkpoint: what it
writes loads and generates, and its Qwen3-0.6B shape has the real model's KV size."""
import importlib.util
from pathlib import Path

import torch

from blockviz.engine.model_runner import kv_bytes_per_block
from blockviz.llm import LLM
from blockviz.models.config import Qwen3Config
from blockviz.sampling_params import SamplingParams

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "random_checkpoint.py"
spec = importlib.util.spec_from_file_location("random_checkpoint", SCRIPT)
random_checkpoint = importlib.util.module_from_spec(spec)
spec.loader.exec_module(random_checkpoint)


def test_a_random_checkpoint_loads_and_generates(tmp_path):
    folder = random_checkpoint.write_random_checkpoint(tmp_path / "tiny", "tiny")
    llm = LLM(folder, device="cpu", kvcache_block_size=16, num_kvcache_blocks=8)
    out = llm.generate(["It is a truth"], SamplingParams(temperature=0, max_tokens=4, ignore_eos=True))
    assert len(out[0]["token_ids"]) == 4


def test_the_qwen3_shape_has_qwen3_0_6b_kv_size():
    config = Qwen3Config.from_dict(random_checkpoint.SHAPES["qwen3-0.6b"])
    # 28 layers × 8 KV heads × 128 dims × K and V × 2 bytes = 114 688 bytes per token (Qwen3-0.6B in bfloat16)
    assert kv_bytes_per_block(config, 1, torch.bfloat16) == 114688
