"""The engine a trace replay runs when it keeps no recording: the Simulator (nano-vllm's Scheduler and
the policy's BlockManager, untouched) with prompts made as int64 arrays and kept packed.

- A prompt arrives as the array tokens.prompt_array made; it becomes a PackedSequence
  (blockviz/policies/packed.py), whose blocks reach the BlockManager as the bytes compute_hash
  hashes: the same hashes and the same equal blocks as lists of ids, so the same decisions, without
  turning 145M token ids into arrays again block by block. Its ids are checked as an array.
- Its BlockManager hashes with packed.packed_hash: compute_hash's hash of the same bytes.
- Every sequence of this engine is packed (a list of ids never equals a block's bytes, so one plain
  Sequence among them would miss hits it should find): add_sequence takes nothing else.
- Every generated token is tokens.OUTPUT_TOKEN, as the replay's rule says, without calling a rule per
  request per step.
- A cached block holds bytes, not a list of ids, so this engine has no views: a replay with
  record=True runs the plain Simulator.
- Quiet steps. Most of a trace's 224 000 steps decide nothing: every running request gets its next
  token and nothing else changes (no block is needed or filled, nobody finishes, nobody waits).
  `quiet_steps()` counts how many of the next steps are such from the engine's state, and
  `run_quiet(n)` gives each request what n of nano-vllm's decode steps would (n tokens, n more
  cached); the driver (workload.Driver.run_quiet) stops them where a request's arrival is due. The
  scheduler and BlockManager still run every step in which anything is decided: an arrival, a
  prefill, a block needed (and a preemption if none is free), a block filled and hashed, a request
  finished (tests/traffic/test_simulator.py: step by step the same as the plain engine).
"""
from itertools import islice, repeat

import numpy as np

from blockviz import checks
from blockviz.engine.sequence import Sequence
from blockviz.policies.packed import PackedSequence, packed_hash
from blockviz.sampling_params import SamplingParams
from blockviz.session import Batch
from blockviz.sim import Simulator
from blockviz.traffic.tokens import OUTPUT_TOKEN


def output_rule(seq: Sequence) -> int:
    """What every request of a trace generates."""
    return OUTPUT_TOKEN


class TraceSimulator(Simulator):

    def __init__(self, **options):
        super().__init__(eos=-1, rule=output_rule, record=False, **options)
        self.scheduler.block_manager.compute_hash = packed_hash   # the same hashes, before any request
        self.known_quiet = (-1, 0)   # (num_steps, quiet_steps() then): only a step changes the running requests

    def add(self, prompt: np.ndarray, max_tokens: int = 16, ignore_eos: bool = False, label: str | None = None,
            script=None) -> PackedSequence:
        if script is not None or not checks.is_id_array(prompt):
            raise ValueError("a trace replay's engine takes a prompt as a 1-D array of token ids, and no script")
        params = SamplingParams(temperature=0, max_tokens=max_tokens, ignore_eos=ignore_eos)
        checks.request_length(len(prompt), params.max_tokens, self.config.max_model_len)
        return self.add_sequence(PackedSequence(prompt, params, block_size=self.config.kvcache_block_size), label)

    def add_sequence(self, seq: Sequence, label: str | None = None) -> Sequence:
        if not isinstance(seq, PackedSequence):
            raise ValueError(f"a trace replay's engine compares packed blocks: add a PackedSequence, "
                             f"got {type(seq).__name__}")
        return super().add_sequence(seq, label)

    def compute(self, seqs: list[Sequence], is_prefill: bool) -> list[int]:
        return [OUTPUT_TOKEN] * len(seqs)

    def check_tokens(self, seqs: list[Sequence], token_ids):
        """compute gives OUTPUT_TOKEN, one per request: nothing to check."""

    def quiet_steps(self) -> int:
        """How many of the next steps decide nothing (see the module's docstring): nobody waits, and
        for every request a decode step schedules, the steps before the first that needs a block
        (may_append), fills one (hash_blocks) or finishes it. 0 when the next step may decide."""
        scheduler = self.scheduler
        if scheduler.waiting or not scheduler.running:   # (eos is -1: no generated token ends a request early)
            return 0
        step, known = self.known_quiet
        if step == self.num_steps:
            return known
        block_size, one = self.config.kvcache_block_size, 1 % self.config.kvcache_block_size
        quiet = None
        for seq in islice(scheduler.running, scheduler.max_num_seqs):   # the requests a decode step schedules
            # may_append takes a block when len % block_size == 1 % block_size; hash_blocks fills one when
            # num_cached_tokens + 1 is a multiple of block_size; the max_tokens-th token finishes the request
            n = seq.num_tokens
            steps = min((one - n) % block_size, -(seq.num_cached_tokens + 1) % block_size,
                        seq.max_tokens - (n - seq.num_prompt_tokens) - 1)
            if quiet is None or steps < quiet:
                quiet = max(steps, 0)
                if not quiet:
                    break
        self.known_quiet = (self.num_steps, quiet)
        return quiet

    def decode_batch(self) -> Batch:
        """What the next step schedules when it is a decode step: the first max_num_seqs running requests."""
        seqs = tuple(islice(self.scheduler.running, self.scheduler.max_num_seqs))
        return Batch(seqs, False, len(seqs))

    def run_quiet(self, steps: int):
        """`steps` quiet steps at once (at most quiet_steps()): each request of decode_batch() gets
        `steps` more tokens, cached as nano-vllm's postprocess caches them."""
        quiet = self.quiet_steps()
        if not 1 <= steps <= quiet:
            raise ValueError(f"only the next {quiet} steps are quiet, not {steps}")
        self.last_batch = self.decode_batch()
        for seq in self.last_batch.seqs:
            seq.generated.extend(repeat(OUTPUT_TOKEN, steps))
            seq.num_tokens += steps
            seq.num_cached_tokens += steps
        self.num_steps += steps
        self.known_quiet = (self.num_steps, quiet - steps)
