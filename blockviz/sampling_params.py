from dataclasses import dataclass

from blockviz import checks

MAX_TEMPERATURE = 100.0


@dataclass
class SamplingParams:
    # Differences from nano-vllm: temperature 0 means greedy instead of being rejected, so lessons
    # can show one reproducible continuation; every field is checked (types included) here.
    temperature: float = 1.0
    max_tokens: int = 64
    ignore_eos: bool = False

    def __post_init__(self):
        self.temperature = checks.real("temperature", self.temperature, 0, MAX_TEMPERATURE)
        self.max_tokens = checks.whole("max_tokens", self.max_tokens, 1)
        self.ignore_eos = checks.flag("ignore_eos", self.ignore_eos)
