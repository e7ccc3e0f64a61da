"""router_pick: which of two real vLLM instances a KV-aware router sends a prompt to, given each
instance's cache recorded from its KV events (lesson 10).

The engine answers: `router.choose` on the recording's index (the longest predicted cached prefix;
on a tie, with no requests in flight, the first instance in order). The known mistakes are the
same choice made from `recorded.hand_cached`'s wrong counts, and picking the instance that simply
caches the most blocks.
"""
import re
from random import Random

from blockviz.exercises import answers
from blockviz.exercises.answers import AnswerError
from blockviz.exercises.core import Feedback, Kind, Solved
from blockviz.exercises.kinds import recorded
from blockviz.exercises.kinds.vllm_cached import MISTAKES, SHAPES
from blockviz.i18n import t
from blockviz.vllm import router

_WORDS = re.compile(r"(?i)instance|server|engine|no\.|#|实例|服务器|引擎|号|第")


def first_longest(counts: dict[str, int]) -> str:
    """The tie rule with no load: the first of the longest (router.py's docstring)."""
    best = max(counts.values())
    return next(name for name, n in counts.items() if n == best)


class RouterPick(Kind):
    name = "router_pick"
    param_names = ("recording", "prompt")
    lesson = 10

    def generate(self, rng: Random) -> dict:
        index = recorded.recorded(recorded.FLEET).index
        per_instance = [recorded.chains(index, source) for source in recorded.instances(recorded.FLEET).values()]
        paths = [p for chains in per_instance for p in chains]
        shape = rng.choice(SHAPES + ("cross",))
        longer = [p for p in paths if len(p) >= 3]
        if shape == "cross" and longer:
            # one instance's first block, then another's chain: its text is cached, but under another parent
            tail = rng.choice(longer)
            head = rng.choice([chains[0] for chains in per_instance if chains and tail not in chains])
            return {"recording": recorded.FLEET, "prompt": recorded.cut_prompt(rng, head[:1], "aligned")
                    + [t for r in tail[1:] for t in r.token_ids] + recorded.fresh(rng, rng.randint(1, 12))}
        path = rng.choice(longer or paths) if shape in ("partial", "miss") else rng.choice(paths)
        return {"recording": recorded.FLEET, "prompt": recorded.cut_prompt(rng, path, shape)}

    def validate(self, params: dict) -> dict:
        if set(params) != set(self.param_names):
            raise ValueError(f"router_pick takes {', '.join(self.param_names)}")
        recorded.check_recording(params["recording"], (recorded.FLEET,))
        recorded.check_token_prompt(params["prompt"])
        return params

    def solve(self, params: dict) -> Solved:
        watch = recorded.recorded(params["recording"])
        named = recorded.instances(params["recording"])
        choice = router.choose(watch.index, params["prompt"], named)
        wrong = {}
        for mistake, switch in MISTAKES.items():
            counts = {n: recorded.hand_cached(watch.index, s, params["prompt"], **switch) for n, s in named.items()}
            wrong[mistake] = int(first_longest(counts))
        sizes = {n: len(recorded.plain_blocks(watch.index, s)) for n, s in named.items()}
        wrong["biggest"] = int(first_longest(sizes))
        return Solved(int(choice.instance), {"choice": choice, "index": watch.index, "named": named, "wrong": wrong,
                                             "B": next(iter(watch.index.block_sizes.values()))})

    def prompt(self, params: dict, solved: Solved, lang: str) -> str:
        named, B = solved.facts["named"], solved.facts["B"]
        return "\n\n".join([
            recorded.recorded_note(lang), t("router_pick.cache", lang, B=B, count=len(named)),
            recorded.cache_table(solved.facts["index"], named, lang),
            t("router_pick.prompt", lang, n=len(params["prompt"])),
            recorded.prompt_table(params["prompt"], B, lang), t("router_pick.task", lang, count=len(named))])

    def parse(self, answer, params: dict, solved: Solved) -> int:
        value = answers.parse_int(_WORDS.sub(" ", answers.normalize(answer)))
        if str(value) not in solved.facts["named"]:
            raise AnswerError("router_pick.not_instance", count=len(solved.facts["named"]))
        return value

    def diagnose(self, params: dict, solved: Solved, value: int) -> Feedback | None:
        named = [m for m, n in solved.facts["wrong"].items() if n == value]
        if named:
            return Feedback(f"router_pick.mis.{named[0]}", {"B": solved.facts["B"]}, named[0],
                            tuple(f"router_pick.mis.{m}" for m in named[1:]))
        return Feedback("router_pick.mis.count")

    def solution(self, params: dict, solved: Solved, lang: str) -> str:
        choice = solved.facts["choice"]
        lines = [t("router_pick.line", lang, name=name, n=n) for name, n in choice.cached_tokens.items()]
        key = "router_pick.solution" if len(choice.tied) == 1 else "router_pick.solution_tie"
        return "\n".join(f"- {line}" for line in lines) + "\n\n" + t(key, lang, answer=solved.answer)
