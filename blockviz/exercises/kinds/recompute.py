"""recompute: how many of a new request's prompt tokens nano-vllm's hash chain and SGLang's radix tree
each recompute (lesson 08b), after earlier requests were served one at a time in a pool that holds
them all, so nothing is evicted.

The engines answer: blockviz.designs.serve runs the requests through nano-vllm's BlockManager
(blocks of block_size) and through the "sglang" policy (SGLang's RadixCache, pages of page_size, a
pool of as many tokens). The solution's procedure (`hand_hit`) gets the same numbers from the tokens
alone: each earlier request leaves its prompt and every generated token but the last (the last one is
sampled, never computed) cached in whole blocks or pages; the new prompt's longest match among them,
capped at its length − 1, rounded down to a block or a page. The known mistakes are that procedure
with one step left out, or the two numbers confused.
"""
from random import Random

from blockviz.brief import brief
from blockviz.designs import serve
from blockviz.engine.sequence import Sequence
from blockviz.exercises import answers
from blockviz.exercises.core import Feedback, Kind, Solved
from blockviz.exercises.kinds.common import fresh
from blockviz.exercises.setups import encode
from blockviz.exercises.tables import show_blocks, show_tokens, table
from blockviz.i18n import t
from blockviz.limits import blocks_needed
from blockviz.sampling_params import SamplingParams
from blockviz.sim import echo_prompt

LABELS = "ABCDEFGH"
NEW = "R"
MAX_REQUESTS = len(LABELS)


def generated(prompt: str | list[int], max_tokens: int) -> list[int]:
    """The tokens the Simulator's default rule (echo_prompt) generates for this prompt."""
    seq = Sequence(encode(prompt), SamplingParams(max_tokens=max_tokens), block_size=1)
    for _ in range(max_tokens):
        seq.append_token(echo_prompt(seq))
    return seq.completion_token_ids


def cached_runs(params: dict, unit: int, with_output: bool = True, last_token: bool = False) -> list[list[int]]:
    """What each earlier request leaves cached, in whole units (blocks or pages): its prompt and its
    generated tokens but the last (with_output=False: the prompt only; last_token=True: the last too)."""
    runs = []
    for prompt in params["requests"]:
        out = generated(prompt, params["max_tokens"]) if with_output else []
        tokens = encode(prompt) + (out if last_token else out[:-1])
        runs.append(tokens[:len(tokens) // unit * unit])
    return runs


def common_prefix(a: list[int], b: list[int]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def hand_hit(new: list[int], runs: list[list[int]], unit: int, cap: bool = True, whole: bool = True) -> int:
    """Prompt tokens taken from the cache: the longest match, at most len − 1 tokens (cap), rounded
    down to the unit (whole)."""
    limit = len(new) - 1 if cap else len(new)
    matched = max((common_prefix(new[:limit], run) for run in runs), default=0)
    return matched // unit * unit if whole else matched


def pool_blocks(params: dict) -> int:
    """Blocks for every request at its longest at once: nothing is ever evicted."""
    prompts = params["requests"] + [params["new"]]
    return sum(blocks_needed(len(encode(p)) + params["max_tokens"], params["block_size"]) for p in prompts)


class Recompute(Kind):
    name = "recompute"
    param_names = ("block_size", "page_size", "max_tokens", "requests", "new")
    lesson = 8

    def generate(self, rng: Random) -> dict:
        for _ in range(300):
            B = rng.choice((2, 3, 4))
            base = fresh(rng, rng.randint(2 * B, 4 * B))
            requests = [base[:rng.randint(B, len(base))] + fresh(rng, rng.randint(0, B))
                        for _ in range(rng.randint(1, 3))]
            max_tokens = rng.randint(1, 4)
            params = {"block_size": B, "page_size": rng.choice((1, 1, B)), "max_tokens": max_tokens,
                      "requests": requests, "new": ""}
            # the new prompt: a piece of what one earlier request computed (a cut mid-block, the whole
            # prompt, into its output), then perhaps fresh tokens
            source = encode(rng.choice(requests)) + generated(rng.choice(requests), max_tokens)
            cut = rng.randint(B, len(source))
            tail = fresh(rng, rng.choice((0, 0, 1, B - 1, B + 1)))
            params["new"] = "".join(map(chr, source[:cut])) + tail
            try:
                params = self.validate(params)
            except ValueError:
                continue
            solved = self.solve(params)
            if max(solved.facts["hits"]) > 0 and len(self.wrong(params, solved)) >= 2:
                return params
        return params

    def validate(self, params: dict) -> dict:
        missing = [name for name in self.param_names if name not in params]
        if missing:   # given params without a seed: every one is needed
            raise ValueError(f"recompute needs {', '.join(missing)} (its params are {', '.join(self.param_names)})")
        B, P = params["block_size"], params["page_size"]
        if not 1 <= B <= 16:
            raise ValueError(f"block_size must be 1..16 here, got {brief(B)}")
        if B % P:
            raise ValueError(f"page_size must divide block_size ({B}), so both designs get the same pool, got {brief(P)}")
        requests = params["requests"]
        if not isinstance(requests, list) or not 1 <= len(requests) <= MAX_REQUESTS:
            raise ValueError(f"requests must list 1..{MAX_REQUESTS} earlier prompts, got {brief(requests)}")
        tokens = sum(len(encode(p)) + params["max_tokens"] for p in requests + [params["new"]])
        if tokens > 256:
            raise ValueError(f"the requests are too long for an exercise: {tokens} tokens (prompts + max_tokens, "
                             "at most 256)")
        return params

    def solve(self, params: dict) -> Solved:
        prompts = params["requests"] + [params["new"]]
        B, P, M = params["block_size"], params["page_size"], params["max_tokens"]
        blocks = pool_blocks(params)
        nano = serve(prompts, "nano-vllm", blocks, B, M)
        tree = serve(prompts, "sglang", blocks * B // P, P, M)
        assert not any(s.evict for s in nano + tree), "the pool holds every request: nothing is evicted"
        return Solved([nano[-1].recompute, tree[-1].recompute],
                      {"hits": [nano[-1].hit, tree[-1].hit], "prompt": nano[-1].prompt, "blocks": blocks})

    def prompt(self, params: dict, solved: Solved, lang: str) -> str:
        B, P, M = params["block_size"], params["page_size"], params["max_tokens"]
        rows = [[label, show_blocks(encode(p), B), show_tokens(generated(p, M))]
                for label, p in zip(LABELS, params["requests"])]
        new = encode(params["new"])
        return "\n\n".join([
            t("recompute.setup", lang, B=B, P=P, M=M, blocks=solved.facts["blocks"], tokens=solved.facts["blocks"] * B),
            table([t("recompute.request", lang), t("recompute.prompt", lang), t("recompute.generated", lang)], rows),
            t("recompute.new", lang, label=NEW, n=len(new), prompt=show_blocks(new, B)),
            t("recompute.task", lang, label=NEW)])

    def parse(self, answer, params: dict, solved: Solved) -> list[int]:
        return answers.parse_ints(answer, count=2)

    def wrong(self, params: dict, solved: Solved) -> list[tuple[str, list[int]]]:
        """(mistake, [nano-vllm, SGLang]) for each known mistake that gives another answer."""
        new, B, P = encode(params["new"]), params["block_size"], params["page_size"]
        n = len(new)

        def both(**switch) -> list[int]:
            runs = {k: v for k, v in switch.items() if k in ("with_output", "last_token")}
            rule = {k: v for k, v in switch.items() if k in ("cap", "whole")}
            return [n - hand_hit(new, cached_runs(params, unit, **runs), unit, **rule) for unit in (B, P)]

        out = [("no_cap", both(cap=False)), ("partial_block", both(whole=False)),
               ("prompts_only", both(with_output=False)), ("last_token", both(last_token=True)),
               ("hits", solved.facts["hits"]), ("swapped", solved.answer[::-1]),
               ("same_unit", [solved.answer[0], solved.answer[0]])]
        return [(name, value) for name, value in out if value != solved.answer]

    def diagnose(self, params: dict, solved: Solved, value: list[int]) -> Feedback | None:
        names = list(dict.fromkeys(name for name, guess in self.wrong(params, solved) if guess == value))
        fmt = {"B": params["block_size"], "P": params["page_size"]}
        if names:
            return Feedback(f"recompute.mis.{names[0]}", fmt, names[0], tuple(f"recompute.mis.{n}" for n in names[1:]))
        if value[0] == solved.answer[0]:
            return Feedback("recompute.mis.sglang_only", fmt)
        if value[1] == solved.answer[1]:
            return Feedback("recompute.mis.nano_only", fmt)
        return None

    def solution(self, params: dict, solved: Solved, lang: str) -> str:
        new, B, P = encode(params["new"]), params["block_size"], params["page_size"]
        lines = []
        for design, unit, hit, redo in zip(("nano-vllm", "SGLang"), (B, P), solved.facts["hits"], solved.answer):
            matched = max((common_prefix(new[:len(new) - 1], run) for run in cached_runs(params, unit)), default=0)
            lines.append("- " + t("recompute.solution.line", lang, design=design, unit=unit, matched=matched,
                                  hit=hit, n=len(new), redo=redo))
        return (t("recompute.solution.cached", lang) + "\n\n" + "\n".join(lines) + "\n\n"
                + t("recompute.solution.answer", lang, answer=", ".join(map(str, solved.answer))))
