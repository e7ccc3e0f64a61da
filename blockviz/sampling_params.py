from dataclasses import dataclass


@dataclass
class SamplingParams:
    # Difference from nano-vllm: temperature 0 means greedy instead of being rejected,
    # so lessons can show one reproducible continuation.
    temperature: float = 1.0
    max_tokens: int = 64
    ignore_eos: bool = False

    def __post_init__(self):
        if self.temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {self.temperature}")
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens must be >= 1, got {self.max_tokens}")
