"""The kinds about the model side agree with the model side itself: kv_bytes with the model runner's
pool and the lessons' numbers, prefill_batch with what a live LLM's ModelRunner builds for the same
step, decode_mask with what paged_decode_attention masks, lifetime with the slots a live LLM writes."""
from unittest import mock

import pytest

torch = pytest.importorskip("torch")

from blockviz import exercises  # noqa: E402
from blockviz.demo.settings import parse_bytes  # noqa: E402
from blockviz.engine.model_runner import DTYPES, kv_bytes_per_block  # noqa: E402
from blockviz.exercises.setups import encode, full_order  # noqa: E402
from blockviz.exercises.kinds.kvbytes import model_config  # noqa: E402
from blockviz.exercises.kinds.lifetime import scenario  # noqa: E402
from blockviz.layers import attention  # noqa: E402
from blockviz.layers.attention import paged_decode_attention  # noqa: E402
from blockviz.llm import LLM  # noqa: E402
from blockviz.model_inputs import model_inputs  # noqa: E402
from blockviz.queries import step_block_table  # noqa: E402
from blockviz.sampling_params import SamplingParams  # noqa: E402
from blockviz.recording.events import KVWritten  # noqa: E402

SEEDS = range(12)


def test_kv_bytes_is_the_model_runners_arithmetic():
    for seed in range(30):
        ex = exercises.make("kv_bytes", seed)
        p = ex.params
        cfg, dtype = model_config(p["model"]), DTYPES[p["dtype"]]
        B = 1 if p["ask"] == "token_bytes" else p["block_size"]
        nbytes = kv_bytes_per_block(cfg, B, dtype)
        itemsize = torch.empty((), dtype=dtype).element_size()
        assert nbytes == 2 * cfg.num_hidden_layers * B * cfg.num_key_value_heads * cfg.head_dim * itemsize
        expected = {"block_bytes": nbytes, "token_bytes": nbytes, "block_mib": nbytes // 2**20,
                    "blocks_fit": parse_bytes(p.get("memory", "1")) // nbytes}[p["ask"]]
        assert ex.answer() == expected, ex.id


def test_kv_bytes_matches_a_real_pool_and_the_lessons():
    llm = LLM(kvcache_block_size=16, num_kvcache_blocks=4, device="cpu", record=False)  # lesson 06, on the CPU
    ex = exercises.make("kv_bytes", model="default", dtype="float32", block_size=16, ask="block_bytes")
    assert ex.answer() == llm.model_runner.block_bytes == llm.model_runner.kv_cache[:, :, 0].numel() * 4
    qwen = dict(model="qwen3-0.6b", dtype="bfloat16")
    assert exercises.make("kv_bytes", **qwen, block_size=256, ask="block_mib").answer() == 28
    assert exercises.make("kv_bytes", **qwen, block_size=16, ask="blocks_fit", memory="2G").answer() \
        == 2 * 2**30 // (2 * 28 * 16 * 8 * 128 * 2)


def live(params: dict, block_size: int, num_blocks: int) -> LLM:
    """The same scenario on a live LLM (the embedded model; prompts as token ids, never stopping early)."""
    llm = LLM(kvcache_block_size=block_size, num_kvcache_blocks=num_blocks, device="cpu",
              max_num_batched_tokens=params.get("budget", 16384))
    if params.get("free_order"):
        llm.arrange_free_queue(full_order(params["free_order"], num_blocks))
    return llm


def run_ops(llm: LLM, ops: list) -> dict:
    seqs = {}
    for op in ops:
        if op[0] == "add":
            seqs[op[1]] = llm.add_request(encode(op[2]), SamplingParams(temperature=0, max_tokens=op[3],
                                                                        ignore_eos=True), label=op[1])
        else:
            for _ in range(op[1]):
                llm.step()
    return seqs


def test_prefill_batch_is_what_a_live_model_runner_builds():
    """The setups never depend on generated tokens (the arrivals share prompts only), so the live
    engine schedules the same batch; model_inputs records what its ModelRunner built."""
    for seed in SEEDS:
        ex = exercises.make("prefill_batch", seed)
        p = ex.params
        llm = live(p, p["block_size"], p["num_blocks"])
        run_ops(llm, p["setup"])
        with model_inputs(llm.model_runner) as batches:
            llm.step()
        assert batches[0]["is_prefill"]
        assert ex.answer() == batches[0][p["ask"]], ex.id


def hidden_by_attention(batch, block_size: int, i: int) -> int:
    """Run paged_decode_attention on a pool whose slot s holds the unit vector s as its value: the
    output of request i is non-zero exactly at the slots its mask lets through. How many keys it
    gathered per request is read off its own gather_kv calls."""
    tables = torch.tensor(batch.inputs["block_tables"], dtype=torch.int32)
    num_blocks = int(tables.max()) + 1
    slots = num_blocks * block_size
    v_cache = torch.eye(slots).view(num_blocks, block_size, 1, slots)
    k_cache = torch.zeros_like(v_cache)
    q = torch.zeros(len(batch.labels), 1, slots)
    gathered, gather_kv = [], attention.gather_kv

    def recording(cache, block_tables, num_keys):
        keys = gather_kv(cache, block_tables, num_keys)
        gathered.append(keys.size(1))
        return keys

    with mock.patch.object(attention, "gather_kv", recording):
        out = paged_decode_attention(q, k_cache, v_cache, torch.tensor(batch.inputs["context_lens"],
                                     dtype=torch.int32), tables, scale=1.0)
    seen = int((out[i, 0] > 0).sum())
    assert len(set(gathered)) == 1  # K and V: one rectangle for the batch
    return gathered[0] - seen


def test_decode_mask_is_what_paged_decode_attention_hides():
    for seed in SEEDS:
        ex = exercises.make("decode_mask", seed)
        f = ex.solved.facts
        assert ex.answer() == hidden_by_attention(f["batch"], ex.params["block_size"], f["i"]), ex.id


def test_lifetime_is_what_a_live_model_writes():
    for seed in range(16):
        ex = exercises.make("lifetime", seed)
        p = ex.params
        s = scenario(p)
        llm = live(s, p["block_size"], s["num_blocks"])
        a = run_ops(llm, s["setup"])["A"]
        first = llm.num_steps + 1
        llm.run()
        slots = sum(len(e.slots) for step in range(first, llm.num_steps + 1) for e in llm.events(step)
                    if isinstance(e, KVWritten))
        blocks = max(len(step_block_table(llm.snapshot(step), llm.events(step), a.seq_id)[0])
                     for step in range(first, llm.num_steps + 1))
        assert ex.answer() == {"slots": slots, "blocks": blocks}[p["ask"]], ex.id
