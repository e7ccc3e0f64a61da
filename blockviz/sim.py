"""The engine without a model: the same Scheduler and BlockManager, tokens from a rule or a script."""
from typing import Callable, Sequence as Seq

from blockviz import checks
from blockviz.brief import brief
from blockviz.char_tokenizer import CharTokenizer
from blockviz.config import Config
from blockviz.limits import blocks_needed, longest_context
from blockviz.engine.sequence import Sequence
from blockviz.policies import Policy
from blockviz.sampling_params import SamplingParams
from blockviz.session import Session
from blockviz.text import render_text

TokenRule = Callable[[Sequence], int]


def echo_prompt(seq: Sequence) -> int:
    """Default rule: repeat the prompt from its start, so generated text stays readable."""
    return seq.token_ids[seq.num_completion_tokens % seq.num_prompt_tokens]


def count_up(seq: Sequence) -> int:
    """Next token = last token + 1."""
    return seq.last_token + 1


TOKEN_RULES: dict[str, TokenRule] = {"echo": echo_prompt, "count": count_up}


class Simulator(Session):
    """A Session whose 'model' is a deterministic rule.

    Limits (blockviz/checks.py): num_blocks <= 4 194 304, token ids in 0..2**31-1, and
    prompt + max_tokens <= max_model_len (default 4096, at most 262 144). policy: the block
    policy by name (blockviz.policies.names(): "nano-vllm", the default, "vllm" or "sglang", SGLang's
    radix tree, recorded with its tree: show(sim, "radix") draws it at any step).

    >>> sim = Simulator(num_blocks=8, block_size=4)
    >>> _ = sim.add("hello world", max_tokens=3)
    >>> sim.run()
    4
    """

    def __init__(self, num_blocks: int = 16, block_size: int = 4, max_num_seqs: int = 512,
                 max_num_batched_tokens: int = 16384, eos: int = CharTokenizer.eos_token_id,
                 rule: str | TokenRule = "echo", record: bool = True, free_order: list[int] | None = None,
                 max_model_len: int = 4096, history: int | None = None, record_to: str | None = None,
                 policy: str | Policy = "nano-vllm"):
        checks.whole("num_blocks", num_blocks, 1, checks.MAX_SIM_BLOCKS)
        checks.whole("block_size", block_size, 1)
        checks.whole("max_num_seqs", max_num_seqs, 1)
        checks.whole("max_num_batched_tokens", max_num_batched_tokens, 1)
        checks.whole("max_model_len", max_model_len, 1, checks.MAX_SIM_MODEL_LEN)
        checks.whole("eos", eos, -1, checks.MAX_TOKEN_ID)
        checks.flag("record", record)
        if free_order is not None:
            if not isinstance(free_order, (list, tuple)):
                raise ValueError(f"free_order must be a list of block ids, got {brief(free_order)}")
            free_order = [checks.whole(f"free_order[{i}]", b, 0, num_blocks - 1) for i, b in enumerate(free_order)]
        if not callable(rule):
            checks.one_of("rule", rule, tuple(TOKEN_RULES))
        config = Config(num_kvcache_blocks=num_blocks, kvcache_block_size=block_size, max_num_seqs=max_num_seqs,
                        max_num_batched_tokens=max_num_batched_tokens, eos=eos, max_model_len=max_model_len)
        super().__init__(config, record, history, record_to, policy)
        if isinstance(rule, str):
            rule = TOKEN_RULES[rule]
        self.rule = rule
        self.tokenizer = CharTokenizer()
        self.scripts: dict[int, list[int]] = {}
        if free_order is not None:
            self.arrange_free_queue(list(free_order))

    def add(self, prompt: str | list[int], max_tokens: int = 16, ignore_eos: bool = False,
            label: str | None = None, script: str | Seq[int] | None = None) -> Sequence:
        """Queue a request. `script`: the tokens it will 'generate', in order (then the rule)."""
        token_ids = checks.token_ids("prompt", self.tokenizer.encode(prompt) if isinstance(prompt, str) else prompt)
        params = SamplingParams(temperature=0, max_tokens=max_tokens, ignore_eos=ignore_eos)
        if script is not None:
            script = checks.token_ids("script", self.tokenizer.encode(script) if isinstance(script, str) else script,
                                      allow_empty=True)
        checks.request_length(len(token_ids), params.max_tokens, self.config.max_model_len)
        seq = Sequence(token_ids, params, block_size=self.config.kvcache_block_size)
        self.add_sequence(seq, label)  # raises, changing nothing, for a request that can never run
        if script is not None:  # only once it is accepted: a rejected add leaves the session as it was
            self.scripts[seq.seq_id] = list(script)
        return seq

    def check_request(self, seq: Sequence):
        # A rule never says EOS, so every simulated request must fit at its longest.
        needed = blocks_needed(longest_context(seq), seq.block_size)
        if needed > self.config.num_kvcache_blocks:
            raise ValueError(f"the request grows to {needed} blocks ({seq.num_prompt_tokens} prompt + "
                             f"{seq.max_tokens} max_tokens, block size {seq.block_size}) but the pool has "
                             f"only {self.config.num_kvcache_blocks}: it could never finish")

    def compute(self, seqs: list[Sequence], is_prefill: bool) -> list[int]:
        return [self.next_token(seq) for seq in seqs]

    def next_token(self, seq: Sequence) -> int:
        script = self.scripts.get(seq.seq_id)
        if script is not None and seq.num_completion_tokens < len(script):
            return script[seq.num_completion_tokens]
        return self.rule(seq)

    def __str__(self) -> str:
        return render_text(self.snapshot(), self.tokenizer.decode)
