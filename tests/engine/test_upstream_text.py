"""Each engine file is nano-vllm's, line for line, except for the differences listed here.

blockviz/engine/*.py and blockviz/layers/sampler.py are diffed against nano-vllm's own files at the
commit the engine matches (tests/engine/upstream/, pinned). Every difference must be in ALLOWED,
with its reason, and every entry in ALLOWED must still be a difference: a new line in engine/ fails
here until it is justified, and a difference that is gone must leave the list. The one rewrite
applied before diffing is the package name (`nanovllm.` -> `blockviz.` in imports). The same
differences are summed up for readers in docs/ARCHITECTURE.md, "Differences from nano-vllm".
"""
from pathlib import Path

import pytest

from tests.engine.upstream import COMMIT, ROOT as UPSTREAM, text
from tests.upstream_copy import BLOCKVIZ, Allowed, KeptCopy

FILES = ["engine/block_manager.py", "engine/scheduler.py", "engine/sequence.py", "engine/model_runner.py",
         "layers/sampler.py"]


ALLOWED = [
    # engine/block_manager.py
    Allowed('engine/block_manager.py', (104, 104),
            "`== 1 % block_size`: the same as nano-vllm's `== 1` for every B > 1; with B = 1 (lessons use it) nano-vllm's test is never true and decode would run past the block table",
            '''\
        return len(self.free_block_ids) >= (len(seq) % self.block_size == 1 % self.block_size)
'''),
    Allowed('engine/block_manager.py', (107, 107),
            'the same `1 % block_size` as can_append, for B = 1',
            '''\
        if len(seq) % self.block_size == 1 % self.block_size:
'''),
    # engine/scheduler.py
    Allowed('engine/scheduler.py', (15, 15),
            'the block manager comes from make_block_manager (below)',
            '''\
        self.block_manager = self.make_block_manager(config.num_kvcache_blocks, config.kvcache_block_size)
'''),
    Allowed('engine/scheduler.py', (18, 17),
            'a one-line factory that the recording scheduler (recording/instrumented.py) and the build-it-yourself checker (diy/checked_engine.py) override to swap in their subclass',
            '''\

    def make_block_manager(self, num_blocks: int, block_size: int) -> BlockManager:
        return BlockManager(num_blocks, block_size)
'''),
    Allowed('engine/scheduler.py', (71, 71),
            'a request that outgrew the whole pool gets an error that says so (a session ends it and goes on) instead of a bare assert',
            '''\
        if not scheduled_seqs:
            raise RuntimeError("no request can run: one has grown larger than the whole KV pool "
                               f"({len(self.block_manager.blocks)} blocks) and cannot be admitted again")
'''),
    # engine/sequence.py
    Allowed('engine/sequence.py', (18, 18),
            'block_size per instance, so engines of different block sizes share one notebook; an empty prompt or a block size < 1 is a clear ValueError',
            '''\
    def __init__(self, token_ids: list[int], sampling_params = SamplingParams(), block_size: int | None = None):
        if len(token_ids) == 0:
            raise ValueError("a request needs at least one prompt token")
        if block_size is not None:
            if block_size < 1:
                raise ValueError(f"block_size must be >= 1, got {block_size}")
            self.block_size = block_size
'''),
    Allowed('engine/sequence.py', (71, 83),
            "no reduced pickle state: nano-vllm's ships sequences to tensor-parallel workers; blockviz has one process, and copies must keep every token",
            '''\
'''),
    # engine/model_runner.py
    Allowed('engine/model_runner.py', (1, 1),
            'no pickle (no tensor-parallel workers); Path for the checkpoint folder',
            '''\
from pathlib import Path
'''),
    Allowed('engine/model_runner.py', (3, 5),
            'one device, one process: no torch.distributed, no shared memory or events',
            '''\
'''),
    Allowed('engine/model_runner.py', (9, 8),
            "the model config is read by blockviz's own Qwen3Config (no transformers at run time); a block's KV bytes by blockviz.models.kv_bytes, torch-free so the capacity planner and the exercises need no torch",
            '''\
from blockviz.models.config import DTYPE_NAMES, Qwen3Config, head_dim_of
from blockviz.models.kv_bytes import kv_bytes_per_block
'''),
    Allowed('engine/model_runner.py', (11, 11),
            'get_context served only the CUDA-graph replay, which blockviz does not have',
            '''\
from blockviz.utils.context import set_context, reset_context
'''),
    Allowed('engine/model_runner.py', (13, 12),
            'the dtype, model building and pool-size formulas as functions: LLM checks a pool fits before building the runner, and the lessons and exercises compute their answers with them',
            '''\

DTYPES = {name: getattr(torch, name) for name in DTYPE_NAMES}


def model_dtype(hf_config: Qwen3Config, device: torch.device, dtype: str | None) -> torch.dtype:
    """The dtype of weights and KV pool: as asked, else float32 on CPU (exact lessons and tests) and
    the checkpoint's torch_dtype on CUDA (bfloat16 when it names none, as Qwen3 ships)."""
    if dtype is not None:
        if dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {sorted(DTYPES)}, got {dtype!r}")
        return DTYPES[dtype]
    if device.type == "cpu":
        return torch.float32
    return DTYPES.get(hf_config.torch_dtype, torch.bfloat16)


def new_model(hf_config: Qwen3Config, dtype: torch.dtype) -> Qwen3ForCausalLM:
    """As nano-vllm: built under the target default dtype, so parameters are born in it while
    buffers made explicitly in float32 (the RoPE cos/sin cache) stay exact; a later
    `.to(dtype)` would round those too."""
    default = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        return Qwen3ForCausalLM(hf_config)
    finally:
        torch.set_default_dtype(default)


def build_model(hf_config: Qwen3Config, path: Path, dtype: torch.dtype, device: torch.device) -> Qwen3ForCausalLM:
    model = new_model(hf_config, dtype)
    load_model(model, path)  # checks everything before touching a parameter
    return model.to(device).eval()


def gpu_kv_budget(total: int, free: int, peak: int, current: int, utilization: float) -> int:
    """nano-vllm's pool budget: the utilisation target, less what the device already uses, less
    the activation peak of the warmup batch (peak - current: memory freed again but needed at run)."""
    used = total - free
    return int(total * utilization - used - peak + current)
'''),
    Allowed('engine/model_runner.py', (17, 17),
            'one device: the device, the model config, the CPU pool budget, the sampling seed and the dtype instead of a rank and its events',
            '''\
    def __init__(self, config: Config, hf_config: Qwen3Config, device: torch.device,
                 kv_cache_memory: int | None = None, seed: int = 0, dtype: str | None = None):
'''),
    Allowed('engine/model_runner.py', (19, 19),
            'the model config is kept for allocate_kv_cache',
            '''\
        self.hf_config = hf_config
'''),
    Allowed('engine/model_runner.py', (21, 89),
            'eager on one device: no process group, CUDA graphs or worker loop; the model built under its dtype (new_model) on CPU or CUDA; a seeded sampler; warmup only when a CUDA pool is sized from free memory',
            '''\
        self.device = device
        self.dtype = model_dtype(hf_config, device, dtype)
        self.model = build_model(hf_config, Path(config.model), self.dtype, device)
        self.sampler = Sampler(torch.Generator(device=device).manual_seed(seed))
        if device.type == "cuda" and config.num_kvcache_blocks == -1:
            self.warmup_model()
        self.allocate_kv_cache(kv_cache_memory)
'''),
    Allowed('engine/model_runner.py', (93, 93),
            "the runner's device, which may be cuda:N",
            '''\
        torch.cuda.reset_peak_memory_stats(self.device)
'''),
    Allowed('engine/model_runner.py', (97, 97),
            'Sequence.block_size is per instance in blockviz',
            '''\
        seqs = [Sequence([0] * seq_len, block_size=self.block_size) for _ in range(num_seqs)]
'''),
    Allowed('engine/model_runner.py', (103, 115),
            "the pool on CPU too (kv_cache_memory bytes, 256 MiB by default) or given as num_kvcache_blocks; nano-vllm's GPU formula in gpu_kv_budget; a ValueError instead of an assert; zeros, so a view of the pool never shows stale memory",
            '''\
    def allocate_kv_cache(self, kv_cache_memory: int | None):
        config, hf = self.config, self.hf_config
        self.block_bytes = kv_bytes_per_block(hf, self.block_size, self.dtype)
        if config.num_kvcache_blocks == -1:
            if self.device.type == "cuda":
                free, total = torch.cuda.mem_get_info(self.device)
                stats = torch.cuda.memory_stats(self.device)
                budget = gpu_kv_budget(total, free, stats["allocated_bytes.all.peak"],
                                       stats["allocated_bytes.all.current"], config.gpu_memory_utilization)
            else:
                budget = kv_cache_memory if kv_cache_memory is not None else 256 * 2**20
            config.num_kvcache_blocks = budget // self.block_bytes
            if config.num_kvcache_blocks < 1:
                raise ValueError(f"a KV block needs {self.block_bytes} bytes but the budget is {budget} bytes")
        head_dim = head_dim_of(hf)
        self.kv_cache = torch.zeros(2, hf.num_hidden_layers, config.num_kvcache_blocks, self.block_size,
                                    hf.num_key_value_heads, head_dim, dtype=self.dtype, device=self.device)
'''),
    Allowed('engine/model_runner.py', (126, 126),
            "tensors made on the runner's device: no pinned host memory on CPU",
            '''\
        block_tables = torch.tensor(block_tables, dtype=torch.int32, device=self.device)
'''),
    Allowed('engine/model_runner.py', (164, 168),
            "on the runner's device; slot_mapping int64, the index type of the pool writes in layers/attention.py",
            '''\
        input_ids = torch.tensor(input_ids, dtype=torch.int64, device=self.device)
        positions = torch.tensor(positions, dtype=torch.int64, device=self.device)
        cu_seqlens_q = torch.tensor(cu_seqlens_q, dtype=torch.int32, device=self.device)
        cu_seqlens_k = torch.tensor(cu_seqlens_k, dtype=torch.int32, device=self.device)
        slot_mapping = torch.tensor(slot_mapping, dtype=torch.int64, device=self.device)
'''),
    Allowed('engine/model_runner.py', (182, 185),
            "on the runner's device; slot_mapping int64, as in prepare_prefill",
            '''\
        input_ids = torch.tensor(input_ids, dtype=torch.int64, device=self.device)
        positions = torch.tensor(positions, dtype=torch.int64, device=self.device)
        slot_mapping = torch.tensor(slot_mapping, dtype=torch.int64, device=self.device)
        context_lens = torch.tensor(context_lens, dtype=torch.int32, device=self.device)
'''),
    Allowed('engine/model_runner.py', (192, 192),
            "on the runner's device",
            '''\
        temperatures = torch.tensor(temperatures, dtype=torch.float32, device=self.device)
'''),
    Allowed('engine/model_runner.py', (197, 212),
            'eager: no CUDA-graph replay for decode',
            '''\
        return self.model.compute_logits(self.model(input_ids, positions))
'''),
    Allowed('engine/model_runner.py', (216, 216),
            'one rank',
            '''\
        temperatures = self.prepare_sample(seqs)
'''),
    Allowed('engine/model_runner.py', (218, 218),
            'one rank',
            '''\
        token_ids = self.sampler(logits, temperatures).tolist()
'''),
    Allowed('engine/model_runner.py', (221, 257),
            'no CUDA graphs to capture',
            '''\
'''),
    # layers/sampler.py
    Allowed('layers/sampler.py', (7, 7),
            "eager (no torch.compile); the sampler owns the generator LLM(seed=...) seeds, so a run's samples are the same every time",
            '''\
    def __init__(self, generator: torch.Generator):
        super().__init__()
        self.generator = generator

'''),
    Allowed('layers/sampler.py', (9, 9),
            'temperature 0 means greedy (SamplingParams allows it): those rows take the largest logit',
            '''\
        greedy_tokens = argmax_rows(logits)
        if not bool((temperatures > 0).any()):
            return greedy_tokens
        logits = logits.float() / temperatures.clamp_min(1e-5).unsqueeze(dim=1)
'''),
    Allowed('layers/sampler.py', (11, 12),
            "the noise from the seeded generator, each row's argmax through numpy on CPU (argmax_rows, defined here), rows at temperature 0 greedy",
            '''\
        sample_tokens = argmax_rows(probs.div_(torch.empty_like(probs).exponential_(1, generator=self.generator).clamp_min_(1e-10)))
        return torch.where(temperatures > 0, sample_tokens, greedy_tokens)


# numpy takes these dtypes as they are (bfloat16 it has not).
NUMPY_FLOATS = (torch.float16, torch.float32, torch.float64)


def argmax_rows(x: torch.Tensor) -> torch.Tensor:
    """x.argmax(dim=-1): per row the index of the largest entry, the first one on a tie (or the first
    NaN). On CPU numpy computes it: torch's CPU argmax over the last dim is not vectorised, 0.3 ms
    of a 6 ms decode step at batch 32 over a 4 096-word vocabulary, where numpy's takes 15 µs and
    picks the same index."""
    if x.device.type == "cpu" and x.dtype in NUMPY_FLOATS:
        return torch.from_numpy(x.numpy().argmax(axis=-1))
    return x.argmax(dim=-1)
'''),
]


def upstream(file: str) -> str:
    return text("nanovllm/" + file).replace("nanovllm.", "blockviz.")


KEPT = KeptCopy(FILES, upstream, ALLOWED)


def test_every_difference_from_nano_vllm_is_listed_and_every_listed_one_exists():
    problems = KEPT.problems("nano-vllm")
    assert not problems, problems


def test_every_entry_says_why_and_is_listed_once():
    assert KEPT.entries_are_sound()


def test_engine_holds_only_nano_vllms_files():
    files = {p.name for p in (BLOCKVIZ / "engine").glob("*")}
    assert files == {"__init__.py"} | {Path(f).name for f in FILES if f.startswith("engine/")}
    assert (BLOCKVIZ / "engine" / "__init__.py").read_text(encoding="utf-8") == ""  # nano-vllm's engine/ has none


def test_the_pinned_files_are_nano_vllms():
    assert len(COMMIT) == 40 and (UPSTREAM / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert "from nanovllm.engine.sequence import Sequence" in text("nanovllm/engine/block_manager.py")


@pytest.mark.parametrize("file, old, new, unlisted, gone", [
    # one comment more is unlisted
    ("engine/scheduler.py", "        # prefill\n", "        # prefill\n        # a note\n",
     [("engine/scheduler.py", (30, 29), "        # a note\n")], []),
    # nano-vllm's `== 1` restored leaves an entry unmatched
    ("engine/block_manager.py", "== 1 % self.block_size:", "== 1:", [], [("engine/block_manager.py", (107, 107))]),
], ids=["a new line", "a difference gone"])
def test_the_check_sees_a_new_line_and_a_difference_gone(tmp_path, file, old, new, unlisted, gone):
    """The check's own reference: one edit to a copy of blockviz's engine files, and what it finds."""
    found_unlisted, found_gone = KEPT.unlisted_and_gone(KEPT.edited(tmp_path, file, old, new))
    assert found_unlisted == unlisted and [(f, lines) for f, lines, _ in found_gone] == gone
