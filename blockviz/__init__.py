"""blockviz: watch nano-vllm's paged KV-cache BlockManager work, step by step."""
from blockviz.config import Config
from blockviz.sampling_params import SamplingParams
from blockviz.sim import Simulator

__all__ = ["Config", "SamplingParams", "Simulator"]
