"""Replaying a trace through blockviz's nano-vllm engine (the Simulator): the trace becomes a
workload like every other (blockviz.workload), played by the one driver.

- Each request: its prompt made from its hash ids when it is handed to the engine
  (tokens.prompt_array), output_length decode steps (ignore_eos), every generated token
  tokens.OUTPUT_TOKEN, so no later prompt shares what it generated.
- arrivals="timestamps": the workload's seconds clock, each request at its timestamp, a step's
  duration from the step-time model (default TRACE_STEP_TIME, below); an idle engine waits for
  the next arrival. arrivals="in-order": every request queued at step 0, in trace order.
- A request is handed to the engine once fewer than max_num_seqs + 1 requests wait: the
  scheduler admits strictly from the head of the queue and at most max_num_seqs a step, so it
  never looks further down, and the schedule is the one it makes with every request queued at its
  time; only a queue's worth of prompts is ever made. (A recording shows a request from when it
  was handed over.)
- policy: a block policy by name (blockviz.policies.names()): "nano-vllm", nano-vllm's
  BlockManager, or "vllm", the same with vLLM's block rules (blockviz/policies/vllm.py: unhashed
  blocks freed to the head of the free queue, blocks registered when scheduled), or "sglang",
  SGLang's radix tree deciding the pages (blockviz/policies/sglang.py).
- A pool of FAST_FREE_QUEUE_BLOCKS blocks or more gets an OrderedFreeQueue
  (blockviz/policies/free_queue.py): the same order as nano-vllm's deque, with the O(1) remove a
  pool of 100 000 blocks needs.
- Cached tokens per request are counted at its first admission, as vLLM's `cached_tokens`.
- A request that can never fit in the pool (its prompt + output - 1 tokens need more blocks than
  the pool has) is refused, as a server with that pool refuses it: it is not handed to the engine,
  Replay.refused marks it, and its prompt tokens count as not cached.
- The engine's max_model_len is the trace's longest request (prompt + output, scaled), so no
  request is refused for its length; one longer than the engine can take at all
  (checks.MAX_SIM_MODEL_LEN) is a ValueError naming it, before anything is replayed.
- record=False (the default: a whole trace is 224 000 steps of pools of 100 000 blocks) keeps no
  recording, lets go of each finished request's tokens and runs the TraceSimulator
  (blockviz/traffic/simulator.py): the same engine with prompts made as int64 arrays
  (tokens.prompt_array) and kept packed, each block hashed from those bytes (policies/packed.py),
  so the same decisions at a third of the cost, and takes the quiet steps (those in which the
  scheduler decides nothing: every running request gets its next token, no block is needed or
  filled, nobody finishes or arrives) at once, about half of what is left (every_step=True runs
  them one by one; tests/traffic/test_simulator.py compares all of it with the plain engine on
  random traces). record=True keeps the engine's recording for the views (a window of a trace),
  under either policy, on the plain Simulator, a step at a time.
"""
from dataclasses import dataclass
from functools import partial
from typing import Literal

import numpy as np

from blockviz import checks
from blockviz import policies
from blockviz.hits import HitRate, binned_hit_rates, hit_rate
from blockviz.char_tokenizer import TokenIds
from blockviz.sim import Simulator
from blockviz.traffic.lengths import HASH_BLOCK, output_length, prompt_length
from blockviz.traffic.simulator import TraceSimulator, output_rule
from blockviz.traffic.tokens import prompt_array
from blockviz.traffic.trace import Trace
from blockviz.workload import (DEFAULT_MAX_MODEL_LEN, LazyPrompt, Played, Driver, Request, Served, StepTime,
                               Workload, linear_step_time)

POLICIES = policies.names()
ARRIVALS = ("timestamps", "in-order")

# The trace is an hour of a cluster's traffic (Kimi: 41 000 prompt tokens a second on average);
# one engine replaying it must keep up or its queue grows without end and the timestamps stop
# mattering. 15 ms a step (a decode step) plus 2 µs a scheduled token (500 000 prefill tokens a
# second, a prefill cluster's rate): the conversation trace then waits at most a few seconds.
TRACE_STEP_TIME: StepTime = partial(linear_step_time, fixed_s=0.015, per_token_s=0.000002)


def request_lengths(trace: Trace, tokens_per_id: int = HASH_BLOCK) -> np.ndarray:
    """prompt + output tokens of each request as the replay makes it (both scaled to tokens_per_id)."""
    outputs = np.array([output_length(int(n), tokens_per_id) for n in trace.output_lengths], dtype=np.int64)
    return trace.prompt_lengths(tokens_per_id) + outputs


def check_lengths(trace: Trace, tokens_per_id: int = HASH_BLOCK) -> int:
    """The longest request's prompt + output, the max_model_len the replay's engine gets (the limit
    grows to what the trace needs); a ValueError naming the first request longer than the engine can
    take (checks.MAX_SIM_MODEL_LEN), before any replay work."""
    lengths = request_lengths(trace, tokens_per_id)
    over = np.flatnonzero(lengths > checks.MAX_SIM_MODEL_LEN)
    if len(over):
        i = int(over[0])
        prompt, total = int(trace.prompt_lengths(tokens_per_id)[i]), int(lengths[i])
        scale = "" if tokens_per_id == HASH_BLOCK else f" at {tokens_per_id} tokens per hash id"
        more = f" ({len(over):,} requests are longer)" if len(over) > 1 else ""
        raise ValueError(f"{trace.name}: request {i + 1} (index {i}) has {prompt:,} prompt + {total - prompt:,} "
                         f"output = {total:,} tokens{scale}, more than the {checks.MAX_SIM_MODEL_LEN:,} "
                         f"(max_model_len) the engine can serve{more}: leave it out of the trace, or replay "
                         f"with a smaller tokens_per_id")
    return max(int(lengths.max(initial=0)), 1)


def workload_of(trace: Trace, pool_tokens: int, block_size: int = HASH_BLOCK, tokens_per_id: int = HASH_BLOCK,
                arrivals: str = "timestamps", max_num_seqs: int = 512,
                max_num_batched_tokens: int = 16384) -> Workload:
    """The trace as a workload: a pool of pool_tokens // block_size blocks, a request a line."""
    checks.whole("pool_tokens", pool_tokens, 1)
    checks.whole("block_size", block_size, 1)
    checks.whole("tokens_per_id", tokens_per_id, 1, HASH_BLOCK)
    checks.one_of("arrivals", arrivals, ARRIVALS)
    if pool_tokens < block_size:
        raise ValueError(f"pool_tokens = {pool_tokens} is less than one block of {block_size}")
    longest = check_lengths(trace, tokens_per_id)
    seconds = (trace.timestamps_ms - trace.timestamps_ms[:1].sum()) / 1000   # no request: none refused to start
    requests = []
    for i in range(len(trace)):
        ids, n_in = trace.ids(i), int(trace.input_lengths[i])
        make = partial(prompt_array, ids, n_in, tokens_per_id)
        requests.append(Request(LazyPrompt(prompt_length(ids, n_in, tokens_per_id), make),
                                max_tokens=output_length(int(trace.output_lengths[i]), tokens_per_id),
                                arrival=float(seconds[i]) if arrivals == "timestamps" else 0,
                                ignore_eos=True))
    return Workload(block_size=block_size, num_blocks=pool_tokens // block_size, requests=requests,
                    max_num_seqs=max_num_seqs, max_num_batched_tokens=max_num_batched_tokens,
                    max_model_len=max(DEFAULT_MAX_MODEL_LEN, longest),
                    clock="seconds" if arrivals == "timestamps" else "steps")


@dataclass(repr=False)
class Replay:
    """What a replay did: per request (in trace order) its prompt tokens, the tokens the prefix
    cache served at its first admission and its preemptions; the run's engine (and recording)."""
    trace: Trace
    pool_tokens: int
    block_size: int
    tokens_per_id: int
    policy: str
    arrivals: str
    prompt_tokens: np.ndarray
    cached_tokens: np.ndarray
    preemptions: np.ndarray
    steps: int
    seconds: float | None         # the simulated time at the end (timestamps only)
    played: Played                # the driver's record; played.engine is the Simulator
    refused: np.ndarray | None = None   # per request: True when it can never fit in the pool

    @property
    def hits(self) -> HitRate:
        """Cached prompt tokens over prompt tokens, as vLLM's cached_tokens counts them."""
        return hit_rate(self.cached_tokens, self.prompt_tokens)

    @property
    def hit_rate(self) -> float:
        return self.hits.value

    @property
    def engine(self) -> Simulator:
        return self.played.engine

    def hit_rate_over_time(self, bin_s: float = 60) -> tuple[np.ndarray, np.ndarray]:
        """(bin start in seconds, hit rate over the prompt tokens of the requests arriving in that bin);
        bins with no request are left out."""
        if not bin_s > 0:
            raise ValueError(f"bin_s must be > 0 seconds, got {bin_s!r}")
        bins = ((self.trace.timestamps_ms - self.trace.timestamps_ms[0]) / 1000 // bin_s).astype(np.int64)
        kept, rates = binned_hit_rates(bins, self.prompt_tokens, self.cached_tokens)
        return kept * bin_s, rates

    def __repr__(self) -> str:
        return f"<Replay {self}>"

    def __str__(self) -> str:
        return (f"{self.trace.name} at {self.pool_tokens:,} tokens (block size {self.block_size}, {self.policy}, "
                f"{self.arrivals}): hit rate {self.hit_rate:.1%} of {self.trace.theoretical_hit_rate(self.tokens_per_id):.1%} "
                f"possible, {int(self.preemptions.sum()):,} preemptions, {self.steps:,} steps"
                + (f", {int(self.refused.sum()):,} requests refused" if self.refused is not None and self.refused.any() else ""))


def replay(trace: Trace, pool_tokens: int, block_size: int = HASH_BLOCK, policy: str = "nano-vllm",
           arrivals: str = "timestamps", tokens_per_id: int = HASH_BLOCK, step_time: StepTime | None = None,
           record: bool = False, max_num_seqs: int = 512, max_num_batched_tokens: int = 16384,
           progress=None, every_step: bool = False) -> Replay:
    """Every request of `trace` through nano-vllm's engine with a pool of `pool_tokens` tokens.
    progress: called with the number of requests finished so far after each step that finished some.
    every_step: run every step through nano-vllm's scheduler, none of the quiet ones at once (the same
    replay, about twice the time; record=True always does)."""
    checks.one_of("policy", policy, POLICIES)
    checks.flag("record", record)
    checks.flag("every_step", every_step)
    refused = refused_requests(trace, pool_tokens, block_size, tokens_per_id)
    full_trace, trace = trace, served_part(trace, ~refused)
    workload = workload_of(trace, pool_tokens, block_size, tokens_per_id, arrivals, max_num_seqs,
                           max_num_batched_tokens)
    engine = (workload.simulator(eos=-1, rule=output_rule, record=True, policy=policy) if record
              else workload.simulator(TraceSimulator, policy=policy))
    engine.tokenizer = TokenIds()  # the trace's tokens have no text: views show their ids
    queue = max_num_seqs + 1   # the scheduler never looks further down the waiting queue
    finished = 0
    with Driver(workload, engine, step_time or TRACE_STEP_TIME) as driver:
        while True:
            driver.admit(most=max(0, queue - len(engine.scheduler.waiting)))
            if driver.done:
                break
            quiet = 0 if record or every_step else engine.quiet_steps()
            if quiet > 1:   # steps that decide nothing, taken at once (traffic/simulator.py)
                driver.run_quiet(quiet)
                continue
            engine.step() if record else engine.advance()   # advance: the step without a frame to build
            driver.stepped()
            done = driver.finished
            if done:
                finished += len(done)
                if not record:
                    let_go(driver, done)
                if progress is not None:
                    progress(finished)
    served = driver.played.served
    prompt = full_trace.prompt_lengths(tokens_per_id).copy()
    cached, preemptions = np.zeros(len(full_trace), dtype=np.int64), np.zeros(len(full_trace), dtype=np.int64)
    kept = np.flatnonzero(~refused)
    prompt[kept] = [r.request.num_prompt_tokens for r in served]
    cached[kept] = [s.first_cached_tokens for s in served]
    preemptions[kept] = [s.preemptions for s in served]
    return Replay(full_trace, pool_tokens, block_size, tokens_per_id, policy, arrivals, prompt, cached, preemptions,
                  engine.num_steps, driver.now if arrivals == "timestamps" else None, driver.played, refused)


def refused_requests(trace: Trace, pool_tokens: int, block_size: int, tokens_per_id: int) -> np.ndarray:
    """Per request: True when it can never fit in pool_tokens // block_size blocks (limits.py's
    rule: its prompt + output - 1 tokens, the most its KV ever holds)."""
    longest = request_lengths(trace, tokens_per_id) - 1
    return -(-longest // block_size) > pool_tokens // block_size


def served_part(trace: Trace, keep: np.ndarray) -> Trace:
    """The trace without the refused requests (itself when none is)."""
    if keep.all():
        return trace
    counts = np.diff(trace.offsets)
    ids = np.repeat(keep, counts)
    return Trace(trace.name, trace.timestamps_ms[keep], trace.input_lengths[keep], trace.output_lengths[keep],
                 np.concatenate([[0], np.cumsum(counts[keep])]), trace.hash_ids[ids])


def let_go(driver: Driver, done: list[Served]) -> None:
    """Without a recording nothing reads a finished request's tokens again: drop them (145M for the
    conversation trace) from the engine's table and the driver's record."""
    engine = driver.engine
    for served in done:
        seq_id = served.seq.seq_id
        del driver.by_seq[seq_id], engine.seqs[seq_id], engine.labels[seq_id]
        served.seq = None
