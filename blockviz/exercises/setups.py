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

from blockviz.engine.block_manager import BlockManager
from blockviz.engine.sequence import Sequence
from blockviz.sim import Simulator
from blockviz.trace.frame import Frame


def full_order(first: list[int], num_blocks: int) -> list[int]:
    """The free queue order that starts with `first`, then the other blocks in id order.

    Simulator(free_order=...) arranges the pool as if earlier requests had come and gone; this is
    how seed 004's block_table [5, 2, 7] is obtained: order [5, 2, 7, 0, 1, 3, 4, 6] and a
    request that needs three blocks (the same as the seed004 scenario preset).
    """
    if len(set(first)) != len(first) or any(not isinstance(b, int) or not 0 <= b < num_blocks for b in first):
        raise ValueError(f"free_order must list distinct block ids in 0..{num_blocks - 1}, got {first}")
    return list(first) + [b for b in range(num_blocks) if b not in first]


def encode(prompt) -> list[int]:
    return [ord(c) for c in prompt] if isinstance(prompt, str) else [int(t) for t in prompt]


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
        return self.sim.add(encode(prompt), max_tokens=max_tokens, label=label,
                            script=None if script is None else encode(script))

    def step(self) -> Frame:
        frame = self.sim.step()
        self.frames.append(frame)
        return frame

    def run(self, ops: list) -> list[Frame]:
        frames = []
        for op in ops:
            if op[0] == "add":
                self.add(*op[1:])
            elif op[0] == "step":
                for _ in range(op[1] if len(op) > 1 else 1):
                    frames.append(self.step())
            else:
                raise ValueError(f"unknown op {op!r}: use ['add', label, prompt, max_tokens(, script)] or ['step', n]")
        return frames


def build(params: dict) -> Built:
    """Run a scenario's setup on a fresh Simulator."""
    order = full_order(list(params["free_order"]), params["num_blocks"]) if params.get("free_order") else None
    sim = Simulator(num_blocks=params["num_blocks"], block_size=params["block_size"],
                    max_num_batched_tokens=params.get("budget", 16384), eos=-1, rule=params.get("rule", "echo"),
                    free_order=order)
    built = Built(sim, [])
    built.run(params.get("setup", []))
    return built


def check_scenario(params: dict) -> None:
    """Raise ValueError (with the engine's own message where it has one) if the setup cannot run.
    Types and sizes were checked already (exercises/params.py); this runs it."""
    for name in ("block_size", "num_blocks"):
        if name not in params:
            raise ValueError(f"a scenario needs {name}")
    labels = [op[1] for op in params.get("setup", []) if op[0] == "add"]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise ValueError(f"each request needs its own label; {', '.join(repeated)} is used twice")
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
