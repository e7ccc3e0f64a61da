"""lifetime: over a request's whole life, how many KV slots it writes, or how many blocks its
block_table holds at its longest (lessons 06 and 09).

The engine answers: request A runs on the Simulator to the end (no EOS: exactly max_tokens
tokens), optionally after a request E with a shared prefix has finished (its full blocks stay
cached). engine.on_compute watches every step A is computed in: the slots are the tokens the
scheduler gives it (num_scheduled_tokens), the blocks the length of its block_table then.
"""
from random import Random

from blockviz.limits import blocks_needed
from blockviz.exercises import answers
from blockviz.exercises.core import Feedback, Kind, Solved
from blockviz.exercises.setups import build, encode, on_compute
from blockviz.exercises.kinds.common import fresh
from blockviz.exercises.tables import show_blocks
from blockviz.brief import brief
from blockviz.i18n import t

ASKS = ("slots", "blocks")


def scenario(params: dict) -> dict:
    B, prompt, earlier = params["block_size"], encode(params["prompt"]), params.get("earlier")
    setup = [["add", "E", earlier, 1], ["step", 1]] if earlier else []
    num_blocks = blocks_needed(len(prompt) + params["max_tokens"], B) + (blocks_needed(len(encode(earlier)), B)
                                                                          if earlier else 0) + 1
    return {"block_size": B, "num_blocks": num_blocks, "setup": setup + [["add", "A", params["prompt"],
                                                                          params["max_tokens"]]]}


def watch(params: dict) -> tuple[int, int, int]:
    """(slots written, most blocks held, tokens found in the cache at admission) for request A."""
    built = build(scenario(params))
    a = built.seq("A")
    slots, blocks, hits = [0], [0], []

    def count(seqs, is_prefill) -> None:
        if any(s is a for s in seqs):
            slots[0] += a.num_scheduled_tokens
            blocks[0] = max(blocks[0], len(a.block_table))
            if not hits:
                hits.append(a.num_cached_tokens)

    stop = on_compute(built, count)
    try:
        built.sim.run()
    finally:
        stop()
    return slots[0], blocks[0], hits[0]


class Lifetime(Kind):
    name = "lifetime"
    param_names = ("block_size", "prompt", "max_tokens", "ask", "earlier")
    lesson = 6

    def generate(self, rng: Random) -> dict:
        B = rng.choice([2, 3, 4, 4, 8, 16])
        ask = rng.choice(ASKS)
        prompt_len = rng.randint(2, 4 * B)
        max_tokens = rng.randint(2, 3 * B)
        if rng.random() < 0.5:  # the last computed token ends a block: computing the last sampled one needs one more
            max_tokens = max(2, max_tokens + (-(prompt_len + max_tokens - 1)) % B)
        prompt = fresh(rng, prompt_len)
        params = {"block_size": B, "prompt": prompt, "max_tokens": max_tokens, "ask": ask}
        if ask == "slots" and prompt_len > B and rng.random() < 0.5:
            params["earlier"] = prompt[:B * rng.randint(1, prompt_len // B)] + fresh(rng, rng.randint(1, B))
        return params

    def validate(self, params: dict) -> dict:
        B, prompt, max_tokens = params.get("block_size"), params.get("prompt"), params.get("max_tokens")
        if not isinstance(B, int) or B < 1:
            raise ValueError(f"block_size must be a whole number >= 1, got {brief(B)}")
        if not prompt or not isinstance(prompt, (str, list)):
            raise ValueError(f"prompt must be a string or token ids, got {brief(prompt)}")
        if not isinstance(max_tokens, int) or max_tokens < 1:
            raise ValueError(f"max_tokens must be a whole number >= 1, got {brief(max_tokens)}")
        if params.get("ask") not in ASKS:
            raise ValueError(f"ask must be one of {ASKS}, got {brief(params.get('ask'))}")
        earlier = params.get("earlier")
        if earlier is not None and (not earlier or not isinstance(earlier, (str, list))):
            raise ValueError(f"earlier must be the prompt of a request that finished before, got {brief(earlier)}")
        return params

    def solve(self, params: dict) -> Solved:
        slots, blocks, cached = watch(params)
        return Solved(slots if params["ask"] == "slots" else blocks, {"cached": cached})

    def prompt(self, params: dict, solved: Solved, lang: str) -> str:
        B, prompt = params["block_size"], encode(params["prompt"])
        lines = [t("lifetime.block_size", lang, B=B)]
        if params.get("earlier"):
            earlier = encode(params["earlier"])
            lines.append(t("lifetime.earlier", lang, prompt=show_blocks(earlier, B), n=len(earlier)))
        lines.append(t("lifetime.request", lang, prompt=show_blocks(prompt, B), n=len(prompt),
                       max_tokens=params["max_tokens"]))
        return "\n\n".join(lines + [t("lifetime.task", lang, question=t(f"lifetime.ask.{params['ask']}", lang))])

    def parse(self, answer, params: dict, solved: Solved) -> int:
        return answers.parse_amount(answer)

    def diagnose(self, params: dict, solved: Solved, value: int) -> Feedback | None:
        B, P, G = params["block_size"], len(encode(params["prompt"])), params["max_tokens"]
        cached = solved.facts["cached"]
        if params["ask"] == "slots":
            models = [("last_token_computed", solved.answer + 1), ("hits_rewritten", P + G - 1),
                      ("prompt_only", P - cached), ("prompt_only", P)]
        else:
            models = [("last_token_computed", blocks_needed(P + G, B)), ("prompt_only", blocks_needed(P, B)),
                      ("rounded_down", (P + G - 1) // B), ("slots_not_blocks", P + G - 1)]
        for name, guess in models:
            if value == guess != solved.answer:
                return Feedback(f"lifetime.mis.{name}", {}, name)
        return None

    def solution(self, params: dict, solved: Solved, lang: str) -> str:
        B, P, G = params["block_size"], len(encode(params["prompt"])), params["max_tokens"]
        if params["ask"] == "slots":
            return t("lifetime.solution.slots", lang, P=P, G=G, cached=solved.facts["cached"], answer=solved.answer)
        return t("lifetime.solution.blocks", lang, P=P, G=G, n=P + G - 1, B=B, answer=solved.answer)
