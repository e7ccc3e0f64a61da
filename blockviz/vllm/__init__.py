"""A real vLLM engine: serve it (serve.py), watch its prefix cache through its KV events
(watch.py), predict the prompt tokens it will reuse (predict.py). See docs/ARCHITECTURE.md."""
from blockviz.vllm.watch import DEFAULT_API, DEFAULT_EVENTS, Picture, Watch, load, watch

__all__ = ["watch", "load", "Watch", "Picture", "DEFAULT_EVENTS", "DEFAULT_API"]
