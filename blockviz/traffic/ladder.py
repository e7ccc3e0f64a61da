"""The ladder: a trace slice a real vLLM served (the policy lab, blockviz.traffic.lab), and every
model of its prefix cache beside what vLLM reported, from the loosest to the most faithful:

1. infinite cache: the one-pass curve's model (blockviz.traffic.curve) with no eviction, an upper
   bound on what any pool serves;
2. one-pass curve: the same model at the lab's pool (requests one at a time, LRU over blocks);
3. nano-vllm: blockviz's engine, nano-vllm's BlockManager, fed vLLM's own generated tokens;
4. vLLM's rules: the same with every re-runnable rule of vLLM's put in (blockviz.vllm.lab.rules);
5. the real vLLM's `cached_tokens`, the reference.

Each rung: its hit rate (cached over prompt tokens) and the mean absolute error per request
against the real vLLM, in points (|cached - vLLM's cached| / prompt tokens, averaged over requests).

The two models run on the slice as it was sent: lab_stream cuts a prompt to fit the server's
max_model_len and caps max_tokens, so `as_sent` rebuilds the trace with those lengths (its hash ids
cut alike), and the curve sees the prompts the servers saw.
"""
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from blockviz.traffic.curve import curve
from blockviz.traffic.lengths import HASH_BLOCK
from blockviz.traffic.trace import Trace

if TYPE_CHECKING:   # only a type here: importing blockviz.traffic loads nothing of the lab
    from blockviz.vllm.lab.run import LabResult

RUNGS = ("infinite cache", "one-pass curve", "nano-vllm", "vLLM's rules", "real vLLM")


@dataclass(frozen=True)
class Rung:
    name: str
    cached_tokens: tuple[int, ...]   # per request, in the stream's order
    hit_rate: float                  # cached over prompt tokens, all requests
    mae_points: float                # mean |cached - vLLM's| / prompt, per request, in points


@dataclass(frozen=True)
class Ladder:
    name: str
    prompt_tokens: tuple[int, ...]
    pool_blocks: int
    block_size: int
    rungs: tuple[Rung, ...]

    def rung(self, name: str) -> Rung:
        return next(r for r in self.rungs if r.name == name)

    def __str__(self) -> str:
        head = (f"{self.name}: {len(self.prompt_tokens)} requests, {sum(self.prompt_tokens):,} prompt tokens, "
                f"a pool of {self.pool_blocks} blocks of {self.block_size}")
        rows = [f"{'rung':<16}{'hit rate':>10}{'MAE/request':>13}"]
        rows += [f"{r.name:<16}{r.hit_rate:>9.1%}{r.mae_points:>9.2f} pts" for r in self.rungs]
        return "\n".join([head, *rows])


def as_sent(trace: Trace, prompt_lengths: list[int], max_tokens: list[int], tokens_per_id: int) -> Trace:
    """The trace with each request's prompt and output as the lab sent them (tokens at tokens_per_id
    an id): ids past the prompt's end dropped, lengths chosen so that lengths.prompt_length and
    output_length give back exactly the sent ones."""
    if len(prompt_lengths) != len(trace) or len(max_tokens) != len(trace):
        raise ValueError(f"the lab served {len(prompt_lengths)} requests, the trace slice has {len(trace)}")
    ids, inputs = [], []
    for i, sent in enumerate(prompt_lengths):
        keep = -(-sent // tokens_per_id)                       # ids that hold a token of the sent prompt
        if sent < 1 or keep > len(trace.ids(i)):
            raise ValueError(f"request {i}: {sent} tokens sent, the trace's prompt holds "
                             f"{len(trace.ids(i))} ids of {tokens_per_id}")
        last = sent - (keep - 1) * tokens_per_id               # tokens in the last kept id, 1..tokens_per_id
        ids.append(trace.ids(i)[:keep])
        inputs.append((keep - 1) * HASH_BLOCK + last * HASH_BLOCK // tokens_per_id)
    outputs = [m * HASH_BLOCK // tokens_per_id for m in max_tokens]
    return Trace(f"{trace.name} (as sent)", trace.timestamps_ms.copy(), np.array(inputs, dtype=np.int64),
                 np.array(outputs, dtype=np.int64), np.cumsum([0] + [len(x) for x in ids]),
                 np.concatenate(ids))


def rung(name: str, cached, prompts: np.ndarray, reference: np.ndarray) -> Rung:
    cached = np.asarray(cached, dtype=np.int64)
    return Rung(name, tuple(int(c) for c in cached), float(cached.sum() / prompts.sum()),
                float(np.mean(np.abs(cached - reference) / prompts) * 100))


def ladder(trace: Trace, result: "LabResult", tokens_per_id: int) -> Ladder:
    """The ladder of a trace slice (trace) the lab served (result, from run_lab or load_lab), its
    prompts made at tokens_per_id tokens an id (blockviz.traffic.lab.lab_stream)."""
    prompts = np.array([len(p) for p in result.prompts], dtype=np.int64)
    sent = as_sent(trace, prompts.tolist(), [r.max_tokens for r in result.requests], tokens_per_id)
    model = curve(sent, block_size=result.block_size, tokens_per_id=tokens_per_id)
    every = model.pool_tokens(int(model.hit_blocks[-1])) if len(model.hit_blocks) else 0
    reference = np.array([o.cached_tokens for o in result.vllm], dtype=np.int64)
    columns = (model.cached_tokens(every), model.cached_tokens(model.pool_tokens(result.nano_blocks)),
               [o.cached_tokens for o in result.nano], [o.cached_tokens for o in result.with_every_rule],
               reference)
    return Ladder(trace.name, tuple(prompts.tolist()), result.nano_blocks, result.block_size,
                  tuple(rung(n, c, prompts, reference) for n, c in zip(RUNGS, columns)))
