"""Real traffic: published serving traces (Mooncake, FAST '25) read, measured and replayed
through blockviz's nano-vllm engine.

>>> from blockviz import traffic
>>> trace = traffic.load("conversation")
>>> round(trace.theoretical_hit_rate(), 3)
0.374
>>> print(traffic.replay(trace.head(20), pool_tokens=10**6, block_size=32, tokens_per_id=32))  # doctest: +ELLIPSIS
conversation[:20] at 1,000,000 tokens (block size 32, nano-vllm, timestamps): hit rate ...
"""
from blockviz.traffic.curve import Curve, curve
from blockviz.traffic.ladder import Ladder, ladder
from blockviz.traffic.lengths import HASH_BLOCK
from blockviz.traffic.read import SHIPPED, TraceFormatError, load
from blockviz.traffic.replay import ARRIVALS, POLICIES, TRACE_STEP_TIME, Replay, replay, workload_of
from blockviz.traffic.trace import Summary, Trace

__all__ = ["ARRIVALS", "Curve", "HASH_BLOCK", "Ladder", "POLICIES", "Replay", "SHIPPED", "Summary", "TRACE_STEP_TIME", "Trace",
           "TraceFormatError", "curve", "ladder", "load", "replay", "workload_of"]
