"""nano-vllm's LLMEngine as a Session: the same Scheduler, a ModelRunner computing real tokens,
and the recording every view and lesson uses (so a Simulator and an LLM are interchangeable)."""
import os
import re
from dataclasses import fields
from pathlib import Path

import numpy as np
import torch
from tokenizers import Tokenizer

from blockviz import checks
from blockviz.brief import brief
from blockviz.config import Config
from blockviz.engine.model_runner import ModelRunner, kv_bytes_per_block, model_dtype
from blockviz.engine.sequence import Sequence
from blockviz.models import DEFAULT_MODEL_DIR
from blockviz.models.config import DTYPE_NAMES, Qwen3Config
from blockviz.policies import get as get_policy
from blockviz.sampling_params import SamplingParams
from blockviz.limits import check_can_ever_run
from blockviz.session import Session
from blockviz.recording.events import KVWritten
from blockviz.utils.context import get_context


class TokenizerFile:
    """tokenizer.json through the `tokenizers` library, with the encode/decode the views use."""

    def __init__(self, path: Path):
        if not path.is_file():
            raise FileNotFoundError(f"no tokenizer.json in model folder {path.parent}")
        try:
            self.tokenizer = Tokenizer.from_file(str(path))
        except Exception as e:  # the library raises a bare Exception for a malformed file
            raise ValueError(f"{path} is not a valid tokenizer file: {e}") from None

    def encode(self, text: str) -> list[int]:
        return self.tokenizer.encode(text, add_special_tokens=False).ids

    def decode(self, token_ids: list[int]) -> str:
        return self.tokenizer.decode(list(token_ids), skip_special_tokens=False)


def check_engine_options(hf_config: Qwen3Config, device, dtype, seed, kv_layer, kv_head, kv_cache_memory, record):
    if device is not None and not isinstance(device, torch.device) and not (
            isinstance(device, str) and re.fullmatch(r"cpu|cuda(:\d+)?", device)):
        raise ValueError(f"device must be 'cpu', 'cuda' or 'cuda:N' (None: cuda when available), got {brief(device, 40)}")
    checks.one_of("dtype", dtype, (None, *DTYPE_NAMES))
    checks.whole("seed", seed, 0)
    checks.flag("record", record)
    if kv_cache_memory is not None:
        checks.whole("kv_cache_memory", kv_cache_memory, 1)
    if kv_layer is not None:  # the KV view's layer and head: checked here, not at the first step
        checks.whole("kv_layer", kv_layer, 0, hf_config.num_hidden_layers - 1)
    if kv_head is not None:
        checks.whole("kv_head", kv_head, 0, hf_config.num_key_value_heads - 1)


def check_pool_fits(config: Config, hf_config: Qwen3Config, device: torch.device, dtype: str | None,
                    kv_cache_memory: int | None):
    """A pool asked for by size (blocks, or bytes on CPU) must fit in the device's memory: torch
    would otherwise swap for minutes or fail deep in its allocator."""
    per_block = kv_bytes_per_block(hf_config, config.kvcache_block_size, model_dtype(hf_config, device, dtype))
    if config.num_kvcache_blocks != -1:
        asked = config.num_kvcache_blocks * per_block
    elif device.type == "cpu" and kv_cache_memory is not None:
        asked = kv_cache_memory
    else:
        return  # sized from what is free, as nano-vllm does
    if device.type == "cuda":
        total = torch.cuda.mem_get_info(device)[1]
    else:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    if asked > total:
        raise ValueError(f"the KV pool would take {asked / 2**30:,.1f} GiB ({per_block:,} bytes per block) but the "
                         f"{device.type} has {total / 2**30:,.1f} GiB; ask for fewer blocks")


class SlotRecordingRunner(ModelRunner):
    """nano-vllm's ModelRunner, keeping the slot_mapping of its last step: the slots that step wrote,
    which the recording (KVWritten) and the KV view read."""

    def run_model(self, input_ids: torch.Tensor, positions: torch.Tensor, is_prefill: bool) -> torch.Tensor:
        self.last_slot_mapping: list[int] = get_context().slot_mapping.tolist()
        return super().run_model(input_ids, positions, is_prefill)


class LLMEngine(Session):
    """LLMEngine(model=None, **config): model=None runs the embedded default model.

    Extra keyword arguments: device ("cpu"/"cuda", default cuda when available),
    dtype ("float32"/"bfloat16"/"float16"; default float32 on CPU, the checkpoint's on CUDA),
    kv_cache_memory (bytes for the pool on CPU when num_kvcache_blocks is -1), seed (sampling),
    kv_layer / kv_head (whose K and V values the KV view keeps per step; None keeps none),
    record (build frames for the views; default True), history (keep only the newest N steps),
    record_to (append each step to a trace file as it runs), policy (the block policy by name,
    blockviz.policies.names(); default nano-vllm's own).
    """

    def __init__(self, model: str | Path | None = None, device: str | None = None, dtype: str | None = None,
                 kv_cache_memory: int | None = None, seed: int = 0, kv_layer: int | None = 0,
                 kv_head: int | None = 0, record: bool = True, history: int | None = None,
                 record_to: str | None = None, policy: str = "nano-vllm", **kwargs):
        names = {f.name for f in fields(Config)}
        unknown = sorted(set(kwargs) - names)
        if unknown:
            raise TypeError(f"unknown option(s) {unknown}; Config takes {sorted(names)}")
        if model is not None and not isinstance(model, (str, Path)):
            raise ValueError(f"model must be a checkpoint folder (a path) or None for the embedded model, got {brief(model, 80)}")
        model_dir = Path(model) if model is not None else DEFAULT_MODEL_DIR
        if not model_dir.is_dir():
            raise FileNotFoundError(f"model folder not found: {model_dir}")
        hf_config = Qwen3Config.from_pretrained(model_dir)
        tokenizer = TokenizerFile(model_dir / "tokenizer.json")
        config = Config(str(model_dir), **kwargs)
        check_engine_options(hf_config, device, dtype, seed, kv_layer, kv_head, kv_cache_memory, record)
        get_policy(policy)   # an unknown name fails here, before the model is loaded
        config.hf_config = hf_config
        config.max_model_len = min(config.max_model_len, hf_config.max_position_embeddings)
        if config.eos == -1 and hf_config.eos_token_id is not None:
            config.eos = hf_config.eos_token_id
        device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        check_pool_fits(config, hf_config, device, dtype, kv_cache_memory)
        self.model_runner = SlotRecordingRunner(config, hf_config, device, kv_cache_memory, seed, dtype)
        super().__init__(config, record, history, record_to, policy)
        self.tokenizer = tokenizer
        self.kv_layer, self.kv_head = kv_layer, kv_head
        dtype_name = str(self.model_runner.dtype).removeprefix("torch.")
        self.meta.update(model=model_dir.name, device=str(device), dtype=dtype_name,
                         block_bytes=self.model_runner.block_bytes)

    @property
    def pool_summary(self) -> str:
        """How big the KV pool is, and why: shown by the lessons and the demo."""
        blocks, size, per_block = self.config.num_kvcache_blocks, self.config.kvcache_block_size, \
            self.model_runner.block_bytes
        return (f"KV pool: {blocks} blocks × {size} tokens, {per_block:,} bytes per block "
                f"({per_block // size:,} per token), {blocks * per_block / 2**20:.1f} MiB of {self.meta['dtype']} "
                f"on {self.meta['device']}")

    def check_request(self, seq: Sequence):
        checks.token_ids("prompt", seq.token_ids, self.config.hf_config.vocab_size)
        checks.request_length(seq.num_prompt_tokens, seq.max_tokens, self.config.max_model_len)

    def new_sequence(self, prompt: str | list[int], sampling_params: SamplingParams) -> Sequence:
        """A Sequence for this engine, its token ids checked against the vocabulary first."""
        if not isinstance(sampling_params, SamplingParams):
            raise ValueError(f"sampling_params must be a SamplingParams, got {sampling_params!r}")
        if isinstance(prompt, str):
            token_ids = self.tokenizer.encode(prompt)
        else:
            token_ids = checks.token_ids("prompt", prompt, self.config.hf_config.vocab_size)
        return Sequence(token_ids, sampling_params, block_size=self.config.kvcache_block_size)

    def add_request(self, prompt: str | list[int], sampling_params: SamplingParams,
                    label: str | None = None) -> Sequence:
        return self.add_sequence(self.new_sequence(prompt, sampling_params), label)

    def compute(self, seqs: list[Sequence], is_prefill: bool) -> list[int]:
        runner = self.model_runner
        token_ids = runner.run(seqs, is_prefill)
        if self.record:
            slots = [s for s in runner.last_slot_mapping if s >= 0]
            payload = {}
            if self.kv_layer is not None and self.kv_head is not None:
                # Only this step's writes, so memory grows with tokens, not with steps x pool size.
                written = runner.kv_cache[:, self.kv_layer].flatten(1, 2)[:, slots, self.kv_head]  # [2, n, head_dim]
                k, v = written.float().cpu().numpy().astype(np.float16)
                payload["kv"] = {"layer": self.kv_layer, "head": self.kv_head, "slots": slots, "k": k, "v": v}
            self.emit_live(KVWritten(tuple(slots), self.config.hf_config.num_hidden_layers), **payload)
        return token_ids

    def generate(self, prompts: list[str] | list[list[int]], sampling_params: SamplingParams | list[SamplingParams],
                 use_tqdm: bool = False) -> list[dict]:
        """As nano-vllm: outputs in prompt order, each {"text": ..., "token_ids": [...]}."""
        if isinstance(prompts, str) or not isinstance(prompts, (list, tuple)):
            raise ValueError(f"generate takes a list of prompts (texts or token id lists), got {brief(prompts, 80)}")
        if not isinstance(sampling_params, list):
            sampling_params = [sampling_params] * len(prompts)
        if len(sampling_params) != len(prompts):
            raise ValueError(f"{len(prompts)} prompts but {len(sampling_params)} sampling params")
        seqs = [self.new_sequence(p, sp) for p, sp in zip(prompts, sampling_params)]
        for seq in seqs:  # check them all first, so a bad prompt leaves nothing half-added
            self.check_request(seq)
            check_can_ever_run(seq, self.config.num_kvcache_blocks, self.config.kvcache_block_size)
        for seq in seqs:
            self.add_sequence(seq)
        self.run()
        return [{"text": self.tokenizer.decode(seq.completion_token_ids), "token_ids": seq.completion_token_ids}
                for seq in seqs]


class LLM(LLMEngine):
    pass
