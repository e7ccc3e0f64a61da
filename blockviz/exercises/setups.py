"""Exercise states built with the real engine: the Simulator (Scheduler + BlockManager) runs them.

A scenario is JSON-able params:
    block_size, num_blocks, budget (max_num_batched_tokens, optional),
    free_order (optional): block ids the free queue starts with, in order (see full_order),
    rule (optional): the Simulator's token rule, "echo" (default: repeat the prompt) or "count",
    setup: a list of ops, each ["add", label, prompt, max_tokens] (optionally + script, the tokens it
    will generate) or ["step", n].
A prompt is a string (one token per character) or a list of token ids. Requests never stop
early: the Simulator runs without EOS, so a request finishes exactly when it reaches max_tokens.
"""
from dataclasses import dataclass
from typing import Any, Callable

from blockviz.brief import brief
from blockviz.engine.block_manager import BlockManager
from blockviz.engine.sequence import Sequence
from blockviz.sim import Simulator
from blockviz.recording.frame import Frame
from blockviz.workload import Request, Workload, add, play, request


def full_order(first: list[int], num_blocks: int) -> list[int]:
    """The free queue order that starts with `first`, then the other blocks in id order.

    Simulator(free_order=...) arranges the pool as if earlier requests had come and gone; this is
    how the seed004 scenario's block_table [5, 2, 7] is obtained: order [5, 2, 7, 0, 1, 3, 4, 6] and a
    request that needs three blocks (the same as the seed004 scenario preset).
    """
    if len(set(first)) != len(first) or any(not isinstance(b, int) or not 0 <= b < num_blocks for b in first):
        raise ValueError(f"free_order must list distinct block ids in 0..{num_blocks - 1}, got {first}")
    return list(first) + [b for b in range(num_blocks) if b not in first]


def encode(prompt) -> list[int]:
    return [ord(c) for c in prompt] if isinstance(prompt, str) else [int(t) for t in prompt]


def requests_of(ops: list) -> tuple[list[Request], int]:
    """Ops as workload requests, each arriving once the steps before it have run, and the steps in all."""
    requests, steps = [], 0
    for op in ops:
        if op[0] == "add" and 4 <= len(op) <= 5:
            label, prompt, max_tokens, *script = op[1:]
            requests.append(request(len(requests), prompt=prompt, max_tokens=max_tokens, arrival=steps, label=label,
                                    script=script[0] if script else None))
        elif op[0] == "step":
            steps += op[1] if len(op) > 1 else 1
        else:
            raise ValueError(f"unknown op {brief(op)}: use ['add', label, prompt, max_tokens(, script)] or ['step', n]")
    return requests, steps


@dataclass
class Built:
    sim: Simulator
    frames: list[Frame]  # one per step the setup ran

    @property
    def bm(self) -> BlockManager:
        return self.sim.scheduler.block_manager

    def seq(self, label: str) -> Sequence:
        for seq_id, name in self.sim.labels.items():
            if name == label:
                return self.sim.seqs[seq_id]
        raise KeyError(label)

    def label(self, seq_id: int) -> str:
        return self.sim.labels[seq_id]

    def add(self, label: str, prompt, max_tokens: int, script=None) -> Sequence:
        return add(self.sim, request(self.sim.num_added, prompt=prompt, max_tokens=max_tokens, label=label,
                                     script=script))

    def step(self) -> Frame:
        frame = self.sim.step()
        self.frames.append(frame)
        return frame

    def run(self, ops: list) -> list[Frame]:
        """More ops on the engine as it is: its requests so far keep running."""
        requests, steps = requests_of(ops)
        config = self.sim.config
        return self.play(Workload(config.kvcache_block_size, config.num_kvcache_blocks, requests,
                                  max_num_seqs=config.max_num_seqs,
                                  max_num_batched_tokens=config.max_num_batched_tokens), steps)

    def play(self, workload: Workload, steps: int) -> list[Frame]:
        start = self.sim.num_steps
        play(workload, self.sim, until=steps)
        ran = self.sim.num_steps - start
        if ran < steps:
            raise ValueError(f"nothing to run after step {self.sim.num_steps}: every request has finished, "
                             f"but the ops ask for {steps} steps")
        frames = [self.sim.frames[s] for s in range(start + 1, self.sim.num_steps + 1)]
        self.frames += frames
        return frames


def build(params: dict) -> Built:
    """Run a scenario's setup on a fresh Simulator."""
    order = full_order(list(params["free_order"]), params["num_blocks"]) if params.get("free_order") else None
    requests, steps = requests_of(params.get("setup", []))
    workload = Workload(params["block_size"], params["num_blocks"], requests,
                        max_num_batched_tokens=params.get("budget", 16384), free_order=order)
    built = Built(workload.simulator(eos=-1, rule=params.get("rule", "echo")), [])
    built.play(workload, steps)
    return built


def check_scenario(params: dict) -> None:
    """Raise ValueError (with the engine's own message where it has one) if the setup cannot run.
    Types and sizes were checked already (exercises/params.py); this runs it."""
    for name in ("block_size", "num_blocks"):
        if name not in params:
            raise ValueError(f"a scenario needs {name}")
    try:
        build(params)
    except (ValueError, RuntimeError) as e:
        raise ValueError(f"the scenario cannot run on the engine: {e}") from None


# --- what the model runner builds for a step the scheduler really scheduled ----------------

@dataclass
class StepBatch:
    """The requests one engine step hands to the model, as they are when it computes, and what
    ModelRunner.prepare_prefill / prepare_decode build from them (model_inputs.prepare_inputs runs
    the model runner's own methods on them, without a model)."""
    is_prefill: bool
    labels: list[str]          # batch order
    tokens: list[list[int]]    # token_ids
    lengths: list[int]         # len(seq)
    cached: list[int]          # num_cached_tokens
    scheduled: list[int]       # num_scheduled_tokens
    tables: list[list[int]]    # block tables (after allocate / may_append)
    inputs: dict[str, Any]     # input_ids, positions, slot_mapping, cu_seqlens_q/k, context_lens, block_tables, ...


def on_compute(built: Built, callback: Callable[[list[Sequence], bool], None]) -> Callable[[], None]:
    """Call `callback(seqs, is_prefill)` each time the engine computes a step, before the scheduler's
    postprocess moves anything. Returns the function that stops it."""
    sim = built.sim
    compute = sim.compute

    def spy(seqs: list[Sequence], is_prefill: bool) -> list[int]:
        callback(seqs, is_prefill)
        return compute(seqs, is_prefill)

    sim.compute = spy
    return lambda: delattr(sim, "compute")


def next_batch(built: Built) -> tuple[StepBatch, Frame]:
    """Run one more step of `built` and return the batch it computed."""
    from blockviz.model_inputs import prepare_inputs
    batches = []

    def keep(seqs: list[Sequence], is_prefill: bool) -> None:
        batches.append(StepBatch(is_prefill, [built.label(s.seq_id) for s in seqs],
                                 [list(s.token_ids) for s in seqs], [len(s) for s in seqs],
                                 [s.num_cached_tokens for s in seqs], [s.num_scheduled_tokens for s in seqs],
                                 [list(s.block_table) for s in seqs],
                                 prepare_inputs(seqs, is_prefill, built.sim.config.kvcache_block_size)))

    stop = on_compute(built, keep)
    try:
        frame = built.step()
    finally:
        stop()
    return batches[0], frame
