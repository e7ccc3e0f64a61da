"""blockviz: watch nano-vllm's paged KV-cache BlockManager work, step by step."""
from blockviz.config import Config
from blockviz.sampling_params import SamplingParams
from blockviz.sim import Simulator

__all__ = ["Config", "LLM", "SamplingParams", "Simulator"]


def __getattr__(name: str):
    # LLM needs torch; import it only when asked, so the Simulator starts fast
    if name == "LLM":
        from blockviz.llm import LLM
        return LLM
    raise AttributeError(f"module 'blockviz' has no attribute {name!r}")
