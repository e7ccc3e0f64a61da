from pathlib import Path
import torch

from blockviz.config import Config
from blockviz.engine.sequence import Sequence
from blockviz.models.config import DTYPE_NAMES, Qwen3Config, head_dim_of
from blockviz.models.kv_bytes import kv_bytes_per_block
from blockviz.models.qwen3 import Qwen3ForCausalLM
from blockviz.layers.sampler import Sampler
from blockviz.utils.context import set_context, reset_context
from blockviz.utils.loader import load_model

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


class ModelRunner:

    def __init__(self, config: Config, hf_config: Qwen3Config, device: torch.device,
                 kv_cache_memory: int | None = None, seed: int = 0, dtype: str | None = None):
        self.config = config
        self.hf_config = hf_config
        self.block_size = config.kvcache_block_size
        self.device = device
        self.dtype = model_dtype(hf_config, device, dtype)
        self.model = build_model(hf_config, Path(config.model), self.dtype, device)
        self.sampler = Sampler(torch.Generator(device=device).manual_seed(seed))
        if device.type == "cuda" and config.num_kvcache_blocks == -1:
            self.warmup_model()
        self.allocate_kv_cache(kv_cache_memory)

    def warmup_model(self):
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(self.device)
        max_num_batched_tokens, max_model_len = self.config.max_num_batched_tokens, self.config.max_model_len
        seq_len = min(max_num_batched_tokens, max_model_len)
        num_seqs = min(max_num_batched_tokens // seq_len, self.config.max_num_seqs)
        seqs = [Sequence([0] * seq_len, block_size=self.block_size) for _ in range(num_seqs)]
        for seq in seqs:
            seq.num_scheduled_tokens = seq_len
        self.run(seqs, True)
        torch.cuda.empty_cache()

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
        layer_id = 0
        for module in self.model.modules():
            if hasattr(module, "k_cache") and hasattr(module, "v_cache"):
                module.k_cache = self.kv_cache[0, layer_id]
                module.v_cache = self.kv_cache[1, layer_id]
                layer_id += 1

    def prepare_block_tables(self, seqs: list[Sequence]):
        max_len = max(len(seq.block_table) for seq in seqs)
        block_tables = [seq.block_table + [-1] * (max_len - len(seq.block_table)) for seq in seqs]
        block_tables = torch.tensor(block_tables, dtype=torch.int32, device=self.device)
        return block_tables

    def prepare_prefill(self, seqs: list[Sequence]):
        input_ids = []
        positions = []
        cu_seqlens_q = [0]
        cu_seqlens_k = [0]
        max_seqlen_q = 0
        max_seqlen_k = 0
        slot_mapping = []
        block_tables = None
        for seq in seqs:
            start = seq.num_cached_tokens
            seqlen_q = seq.num_scheduled_tokens
            end = start + seqlen_q
            seqlen_k = end
            input_ids.extend(seq[start:end])
            positions.extend(range(start, end))
            cu_seqlens_q.append(cu_seqlens_q[-1] + seqlen_q)
            cu_seqlens_k.append(cu_seqlens_k[-1] + seqlen_k)
            max_seqlen_q = max(seqlen_q, max_seqlen_q)
            max_seqlen_k = max(seqlen_k, max_seqlen_k)
            if not seq.block_table:    # warmup
                continue
            start_block = start // self.block_size
            end_block = (end + self.block_size - 1) // self.block_size
            for i in range(start_block, end_block):
                slot_start = seq.block_table[i] * self.block_size
                if i == start_block:
                    slot_start += start % self.block_size
                if i != end_block - 1:
                    slot_end = seq.block_table[i] * self.block_size + self.block_size
                else:
                    slot_end = seq.block_table[i] * self.block_size + end - i * self.block_size
                slot_mapping.extend(range(slot_start, slot_end))
        if cu_seqlens_k[-1] > cu_seqlens_q[-1]:    # prefix cache
            block_tables = self.prepare_block_tables(seqs)
        input_ids = torch.tensor(input_ids, dtype=torch.int64, device=self.device)
        positions = torch.tensor(positions, dtype=torch.int64, device=self.device)
        cu_seqlens_q = torch.tensor(cu_seqlens_q, dtype=torch.int32, device=self.device)
        cu_seqlens_k = torch.tensor(cu_seqlens_k, dtype=torch.int32, device=self.device)
        slot_mapping = torch.tensor(slot_mapping, dtype=torch.int64, device=self.device)
        set_context(True, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, slot_mapping, None, block_tables)
        return input_ids, positions

    def prepare_decode(self, seqs: list[Sequence]):
        input_ids = []
        positions = []
        slot_mapping = []
        context_lens = []
        for seq in seqs:
            input_ids.append(seq.last_token)
            positions.append(len(seq) - 1)
            context_lens.append(len(seq))
            slot_mapping.append(seq.block_table[-1] * self.block_size + seq.last_block_num_tokens  - 1)
        input_ids = torch.tensor(input_ids, dtype=torch.int64, device=self.device)
        positions = torch.tensor(positions, dtype=torch.int64, device=self.device)
        slot_mapping = torch.tensor(slot_mapping, dtype=torch.int64, device=self.device)
        context_lens = torch.tensor(context_lens, dtype=torch.int32, device=self.device)
        block_tables = self.prepare_block_tables(seqs)
        set_context(False, slot_mapping=slot_mapping, context_lens=context_lens, block_tables=block_tables)
        return input_ids, positions

    def prepare_sample(self, seqs: list[Sequence]):
        temperatures = [seq.temperature for seq in seqs]
        temperatures = torch.tensor(temperatures, dtype=torch.float32, device=self.device)
        return temperatures

    @torch.inference_mode()
    def run_model(self, input_ids: torch.Tensor, positions: torch.Tensor, is_prefill: bool):
        return self.model.compute_logits(self.model(input_ids, positions))

    def run(self, seqs: list[Sequence], is_prefill: bool) -> list[int]:
        input_ids, positions = self.prepare_prefill(seqs) if is_prefill else self.prepare_decode(seqs)
        temperatures = self.prepare_sample(seqs)
        logits = self.run_model(input_ids, positions, is_prefill)
        token_ids = self.sampler(logits, temperatures).tolist()
        reset_context()
        return token_ids
