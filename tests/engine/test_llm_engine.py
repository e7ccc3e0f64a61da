"""The engine with a real (tiny, random) model: paged generation equals dense greedy decoding
whatever the block size, caching, chunking or preemption."""
import random

import pytest
import torch

from blockviz.llm import LLMEngine
from blockviz.llm import LLM
from blockviz.sampling_params import SamplingParams
from tests.engine.tiny_model import dense_greedy, write_tiny_model


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return write_tiny_model(tmp_path_factory.mktemp("tiny"))


@pytest.fixture(scope="module")
def prompts():
    rng = random.Random(1)
    shared = [rng.randrange(94) for _ in range(21)]
    return [shared + [rng.randrange(94) for _ in range(rng.randrange(1, 12))] for _ in range(4)] + [shared[:16]]


@pytest.fixture(scope="module")
def expected(model_dir, prompts):
    return [dense_greedy(model_dir, p, 6) for p in prompts]


GREEDY = SamplingParams(temperature=0, max_tokens=6, ignore_eos=True)


@pytest.mark.parametrize("block_size", [1, 2, 4, 16, 256])
def test_paged_generation_equals_dense(model_dir, prompts, expected, block_size):
    llm = LLM(model_dir, device="cpu", kvcache_block_size=block_size, num_kvcache_blocks=4096 // block_size + 8)
    outputs = llm.generate(prompts, GREEDY)
    assert [o["token_ids"] for o in outputs] == expected


def test_prefix_hits_chunking_and_preemption_change_nothing(model_dir, prompts, expected):
    # warm pool: the same prompts again hit the cached prefix blocks
    llm = LLM(model_dir, device="cpu", kvcache_block_size=4, num_kvcache_blocks=64)
    llm.generate(prompts, GREEDY)
    again = llm.generate(prompts, GREEDY)
    assert [o["token_ids"] for o in again] == expected
    hits = [e for f in llm.frames for e in f.events if e.kind == "probe" and e.outcome.startswith("hit")]
    assert hits
    # chunked prefill: a token budget smaller than one prompt
    chunked = LLM(model_dir, device="cpu", kvcache_block_size=4, num_kvcache_blocks=64, max_num_batched_tokens=7)
    assert [o["token_ids"] for o in chunked.generate(prompts, GREEDY)] == expected
    # preemption: a pool barely big enough for one request at its longest
    tight = LLM(model_dir, device="cpu", kvcache_block_size=4, num_kvcache_blocks=10)
    assert [o["token_ids"] for o in tight.generate(prompts, GREEDY)] == expected
    assert any(e.kind == "preempt" for f in tight.frames for e in f.events)


def test_under_sglangs_radix_tree_the_tokens_are_the_same(model_dir, prompts, expected):
    """policy="sglang": pages found in the tree, duplicates given up for the tree's, generated tokens
    cached, chunks and preemption; the model computes the same tokens as dense decoding."""
    for options in ({"num_kvcache_blocks": 64}, {"num_kvcache_blocks": 64, "max_num_batched_tokens": 7},
                    {"num_kvcache_blocks": 10}):
        llm = LLM(model_dir, device="cpu", kvcache_block_size=4, policy="sglang", **options)
        assert [o["token_ids"] for o in llm.generate(prompts, GREEDY)] == expected
        assert [o["token_ids"] for o in llm.generate(prompts, GREEDY)] == expected   # now hitting the tree
        assert llm.policy.name == "sglang" and llm.snapshot().tree is not None
        kinds = {e.kind for f in llm.frames for e in f.events}
        assert "share" in kinds   # hits in the tree
        if options["num_kvcache_blocks"] == 10:
            assert "preempt" in kinds
    with pytest.raises(ValueError, match="policy must be one of 'nano-vllm', 'vllm', 'sglang', got 'radix'"):
        LLM(model_dir, device="cpu", policy="radix")


def test_bfloat16_engine_runs_through_every_path(model_dir, prompts):
    """CUDA's dtype through the whole engine on CPU: prefix hits, chunked prefill and preemption all
    run to the end. Tokens are not compared across paths: bfloat16 rounding depends on batch shapes
    and flips near ties (one prompt here has 4.5197 against 4.5187); the logits are compared in
    tests/engine/test_model_runner.py."""
    for options in ({}, {"max_num_batched_tokens": 7}, {"num_kvcache_blocks": 10}):
        llm = LLM(model_dir, device="cpu", dtype="bfloat16", **{"kvcache_block_size": 4, "num_kvcache_blocks": 64,
                                                                  **options})
        for _ in range(2):  # the second round hits the first one's blocks
            outputs = llm.generate(prompts, GREEDY)
            assert [len(o["token_ids"]) for o in outputs] == [GREEDY.max_tokens] * len(prompts)
        assert llm.model_runner.kv_cache.dtype is torch.bfloat16
    assert "MiB of bfloat16 on cpu" in llm.pool_summary


def test_kv_writes_are_recorded_with_values(model_dir, prompts):
    llm = LLMEngine(model_dir, device="cpu", kvcache_block_size=4, num_kvcache_blocks=32, kv_layer=1, kv_head=1)
    seq = llm.add_request(prompts[0], SamplingParams(temperature=0, max_tokens=2, ignore_eos=True))
    llm.step()
    frame = llm.frames[1]
    written = [e for e in frame.events if e.kind == "kv_write"]
    table = frame.snapshot.seqs[seq.seq_id].block_table
    assert written and list(written[0].slots) == [table[t // 4] * 4 + t % 4 for t in range(len(prompts[0]))]
    kv = frame.payload["kv"]
    assert kv["k"].shape == (len(prompts[0]), 16)
    pool = llm.model_runner.kv_cache[0, 1].flatten(0, 1)
    assert abs(float(pool[kv["slots"][3], 1, 5]) - float(kv["k"][3, 5])) < 1e-2


def test_seeded_sampling_is_reproducible(model_dir, prompts):
    params = SamplingParams(temperature=1.0, max_tokens=8, ignore_eos=True)
    first = LLM(model_dir, device="cpu", kvcache_block_size=4, num_kvcache_blocks=64, seed=7).generate(prompts, params)
    second = LLM(model_dir, device="cpu", kvcache_block_size=4, num_kvcache_blocks=64, seed=7).generate(prompts, params)
    assert first == second


def test_bad_requests_are_clear_and_add_nothing(model_dir):
    llm = LLM(model_dir, device="cpu", kvcache_block_size=4, num_kvcache_blocks=8, max_model_len=40)
    with pytest.raises(ValueError, match="max_model_len"):
        llm.generate([[1] * 41], GREEDY)
    with pytest.raises(ValueError, match="could never"):
        llm.generate([[1] * 5, [2] * 33], GREEDY)
    assert llm.is_finished() and not llm.seqs


def test_memory_budget_sets_the_pool(model_dir):
    llm = LLM(model_dir, device="cpu", kvcache_block_size=4, kv_cache_memory=10_000)
    per_block = 2 * 2 * 4 * 2 * 16 * 4  # K and V, layers, B, kv heads, head_dim, fp32
    assert llm.meta["block_bytes"] == per_block
    assert llm.config.num_kvcache_blocks == 10_000 // per_block


def test_missing_and_corrupt_model_files(tmp_path, model_dir):
    with pytest.raises(FileNotFoundError, match="model folder not found"):
        LLM(tmp_path / "nope")
    broken = write_tiny_model(tmp_path / "broken")
    (broken / "model.safetensors").write_bytes(b"not a safetensors file")
    with pytest.raises(ValueError, match="safetensors"):
        LLM(broken, device="cpu", num_kvcache_blocks=8)


def test_model_trace_round_trip_keeps_text_and_kv(model_dir, prompts, tmp_path):
    from blockviz.recording.io import load_trace
    llm = LLM(model_dir, device="cpu", kvcache_block_size=4, num_kvcache_blocks=64)
    llm.generate(prompts[:2], SamplingParams(temperature=0, max_tokens=3, ignore_eos=True))
    llm.save(tmp_path / "t.json")
    loaded = load_trace(tmp_path / "t.json")
    seq = loaded.snapshot(-1).seqs[min(loaded.snapshot(-1).seqs)]
    assert [loaded.decode([t]) for t in seq.token_ids] == [llm.decode([t]) for t in seq.token_ids]
    original, copy = llm.frames[1].payload["kv"], loaded.frames[1].payload["kv"]
    assert copy["slots"] == original["slots"]
    assert abs(copy["k"].astype(float) - original["k"].astype(float)).max() < 1e-3


def test_pool_summary_reports_bytes_per_block(model_dir):
    llm = LLM(model_dir, device="cpu", kvcache_block_size=4, num_kvcache_blocks=10)
    assert llm.pool_summary.startswith(f"KV pool: 10 blocks × 4 tokens, {llm.meta['block_bytes']:,} bytes per block")


def test_unsupported_architecture_and_bad_tokenizer(tmp_path):
    import json
    folder = write_tiny_model(tmp_path / "m")
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "architectures": ["LlamaForCausalLM"]}))
    with pytest.raises(ValueError, match="unsupported architecture"):
        LLM(folder, device="cpu", num_kvcache_blocks=8)
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "tokenizer.json").write_text("{ not json")
    with pytest.raises(ValueError, match="not a valid tokenizer"):
        LLM(folder, device="cpu", num_kvcache_blocks=8)
    (folder / "tokenizer.json").unlink()
    with pytest.raises(FileNotFoundError, match="tokenizer.json"):
        LLM(folder, device="cpu", num_kvcache_blocks=8)
