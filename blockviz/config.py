from dataclasses import dataclass
from typing import Any


@dataclass
class Config:
    # Same fields as nano-vllm's Config. Differences: `model` may be None (the Simulator runs
    # without one), any block size >= 1 is allowed (lessons use B=4), and bad values raise
    # ValueError instead of failing an assert later.
    model: str | None = None
    max_num_batched_tokens: int = 16384
    max_num_seqs: int = 512
    max_model_len: int = 4096
    gpu_memory_utilization: float = 0.9
    tensor_parallel_size: int = 1
    enforce_eager: bool = True
    hf_config: Any = None
    eos: int = -1
    kvcache_block_size: int = 256
    num_kvcache_blocks: int = -1  # -1: derived from a memory budget by the model runner

    def __post_init__(self):
        positive = {
            "kvcache_block_size": self.kvcache_block_size,
            "max_num_batched_tokens": self.max_num_batched_tokens,
            "max_num_seqs": self.max_num_seqs,
            "max_model_len": self.max_model_len,
        }
        for name, value in positive.items():
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"Config.{name} must be an integer >= 1, got {value!r}")
        if not isinstance(self.num_kvcache_blocks, int) or (self.num_kvcache_blocks < 1 and self.num_kvcache_blocks != -1):
            raise ValueError(f"Config.num_kvcache_blocks must be >= 1 (or -1 to derive it from memory), "
                             f"got {self.num_kvcache_blocks!r}")
        if not 0 < self.gpu_memory_utilization <= 1:
            raise ValueError(f"Config.gpu_memory_utilization must be in (0, 1], got {self.gpu_memory_utilization}")
