from dataclasses import dataclass
from typing import Any

from blockviz import checks


@dataclass
class Config:
    # Same fields as nano-vllm's Config. Differences: `model` may be None (the Simulator runs
    # without one), any block size >= 1 is allowed (lessons use B=4), bad values raise
    # ValueError instead of failing an assert later, and what blockviz does not implement is an
    # error rather than ignored: one device (tensor_parallel_size=1), no CUDA graphs (enforce_eager=True).
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
        for name in ("kvcache_block_size", "max_num_batched_tokens", "max_num_seqs", "max_model_len"):
            setattr(self, name, checks.whole(f"Config.{name}", getattr(self, name), 1))
        blocks = checks.whole("Config.num_kvcache_blocks", self.num_kvcache_blocks, -1)
        if blocks == 0:
            raise ValueError("Config.num_kvcache_blocks must be >= 1 (or -1 to derive it from memory), got 0")
        self.num_kvcache_blocks = blocks
        self.eos = checks.whole("Config.eos", self.eos, -1)  # -1: no EOS (or the model's)
        self.gpu_memory_utilization = checks.real("Config.gpu_memory_utilization", self.gpu_memory_utilization,
                                                  0, 1, low_open=True)
        if checks.whole("Config.tensor_parallel_size", self.tensor_parallel_size, 1) != 1:
            raise ValueError(f"Config.tensor_parallel_size must be 1: blockviz runs on one device, "
                             f"got {self.tensor_parallel_size}")
        if checks.flag("Config.enforce_eager", self.enforce_eager) is not True:
            raise ValueError("Config.enforce_eager must be True: blockviz has no CUDA graphs and always runs eagerly")
