"""Real traffic: published serving traces (Mooncake, FAST '25) read, measured and replayed
through blockviz's nano-vllm engine.

>>> from blockviz import traffic
>>> trace = traffic.load("conversation")
>>> round(trace.theoretical_hit_rate(), 3)
0.374
"""
from blockviz.traffic.read import SHIPPED, TraceFormatError, load
from blockviz.traffic.trace import HASH_BLOCK, Summary, Trace

__all__ = ["HASH_BLOCK", "SHIPPED", "Summary", "Trace", "TraceFormatError", "load"]
