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
"""
import numpy as np

from blockviz import checks
from blockviz.engine.sequence import Sequence
from blockviz.policies.packed import PackedSequence, packed_hash
from blockviz.sampling_params import SamplingParams
from blockviz.sim import Simulator
from blockviz.traffic.tokens import OUTPUT_TOKEN


def output_rule(seq: Sequence) -> int:
    """What every request of a trace generates."""
    return OUTPUT_TOKEN


class TraceSimulator(Simulator):

    def __init__(self, **options):
        super().__init__(eos=-1, rule=output_rule, record=False, **options)
        self.scheduler.block_manager.compute_hash = packed_hash   # the same hashes, before any request

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
