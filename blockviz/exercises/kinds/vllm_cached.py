"""vllm_cached: how many prompt tokens a real vLLM takes from its prefix cache, given the cache
recorded from its KV events (lesson 10).

The engine answers: `predict.cached_tokens` on the recording's index (the walk vLLM's
get_computed_blocks does, checked against vLLM's own reports by tests/vllm and
scripts/record_lesson10.py). `recorded.hand_cached` gives the answers of the known mistakes.
"""
from random import Random

from blockviz.exercises import answers
from blockviz.exercises.core import Feedback, Kind, Solved
from blockviz.exercises.kinds import recorded
from blockviz.i18n import t
from blockviz.vllm import predict

SHAPES = ("aligned", "tail", "partial", "miss")
# mistake -> hand_cached's switches
MISTAKES = {"cap": {"cap": False}, "partial": {"whole_blocks": False}, "past_miss": {"follow_parent": False}}


def source_of(name: str) -> str:
    return recorded.recorded(name).index.sources()[0]


class VllmCached(Kind):
    name = "vllm_cached"
    param_names = ("recording", "prompt")
    lesson = 10

    def generate(self, rng: Random) -> dict:
        index = recorded.recorded(recorded.SINGLE).index
        paths = recorded.chains(index, source_of(recorded.SINGLE))
        shape = rng.choice(SHAPES)
        path = rng.choice([p for p in paths if len(p) >= 2] or paths) if shape in ("partial", "miss") \
            else rng.choice(paths)
        return {"recording": recorded.SINGLE, "prompt": recorded.cut_prompt(rng, path, shape)}

    def validate(self, params: dict) -> dict:
        if set(params) != set(self.param_names):
            raise ValueError(f"vllm_cached takes {', '.join(self.param_names)}")
        recorded.check_recording(params["recording"], (recorded.SINGLE,))
        recorded.check_token_prompt(params["prompt"])
        return params

    def solve(self, params: dict) -> Solved:
        index = recorded.recorded(params["recording"]).index
        source = source_of(params["recording"])
        prompt = params["prompt"]
        answer = predict.cached_tokens(index, source, prompt)
        wrong = {name: recorded.hand_cached(index, source, prompt, **switch) for name, switch in MISTAKES.items()}
        return Solved(answer, {"index": index, "source": source, "B": index.block_sizes[source], "wrong": wrong})

    def prompt(self, params: dict, solved: Solved, lang: str) -> str:
        index, source, B = solved.facts["index"], solved.facts["source"], solved.facts["B"]
        prompt = params["prompt"]
        return "\n\n".join([
            recorded.recorded_note(lang), t("vllm_cached.cache", lang, B=B),
            recorded.cache_table(index, {"": source}, lang),
            t("vllm_cached.prompt", lang, n=len(prompt)), recorded.prompt_table(prompt, B, lang),
            t("vllm_cached.task", lang)])

    def parse(self, answer, params: dict, solved: Solved) -> int:
        return answers.parse_int(answer)

    def diagnose(self, params: dict, solved: Solved, value: int) -> Feedback | None:
        B, wrong = solved.facts["B"], solved.facts["wrong"]
        named = [name for name, n in wrong.items() if n == value and n != solved.answer]
        if named:
            return Feedback(f"vllm_cached.mis.{named[0]}", {"B": B}, named[0],
                            tuple(f"vllm_cached.mis.{n}" for n in named[1:]))
        if solved.answer and value * B == solved.answer:
            return Feedback("vllm_cached.mis.blocks", {"B": B}, "blocks")
        if value % B:
            return Feedback("vllm_cached.mis.not_whole", {"B": B}, "not_whole")
        return None

    def solution(self, params: dict, solved: Solved, lang: str) -> str:
        B, prompt = solved.facts["B"], params["prompt"]
        most = (len(prompt) - 1) // B
        return t("vllm_cached.solution", lang, n=len(prompt), B=B, most=most, blocks=solved.answer // B,
                 answer=solved.answer)
