"""decode_block: which running requests get a new block in the next decode step.

The engine answers: the setup runs, then one more step; may_append's BlockAppended events
name the requests that got a block (can_append / may_append test len(seq) % B == 1).
"""
from random import Random

from blockviz.limits import blocks_needed
from blockviz.exercises import answers
from blockviz.exercises.core import Feedback, Kind, Solved
from blockviz.exercises.setups import build, check_scenario
from blockviz.exercises.kinds.common import fresh, labels_in, sample, setup_story, shuffled_pool
from blockviz.exercises.params import SCENARIO
from blockviz.exercises.tables import requests_table
from blockviz.i18n import t
from blockviz.recording import events as ev


def random_decode(rng: Random) -> dict:
    B = rng.choice([2, 3, 4, 4, 8])
    d = rng.randint(0, 3)
    labels = ["A", "B", "C"][:rng.randint(2, 3)]
    setup, need = [], 0
    for label in labels:
        residue = rng.choice([0, 1, 1, rng.randrange(B)])  # of len(seq) after the setup
        length = rng.randint(1, 3) * B + residue
        prompt_len = max(1, length - 1 - d)
        setup.append(["add", label, fresh(rng, prompt_len), d + 4])
        need += blocks_needed(prompt_len + d + 3, B)
    setup.append(["step", 1 + d])
    num_blocks = need + rng.randint(1, 3)
    return shuffled_pool(rng, B, num_blocks, setup)


def next_step(params: dict):
    built = build(params)
    lengths = {built.label(s.seq_id): len(s) for s in built.sim.scheduler.running}
    frame = built.step()
    appended = sorted(built.label(e.seq_id) for e in frame.events if isinstance(e, ev.BlockAppended))
    return built, frame, lengths, appended


class DecodeBlock(Kind):
    name = "decode_block"
    param_names = SCENARIO
    lesson = 4

    def generate(self, rng: Random) -> dict:
        def ok(params: dict) -> bool:
            try:
                built, frame, lengths, appended = next_step(params)
            except (ValueError, RuntimeError):
                return False
            B = params["block_size"]
            decoding = any(isinstance(e, ev.Scheduled) and not e.is_prefill for e in frame.events)
            no_preempt = not any(isinstance(e, ev.Preempted) for e in frame.events)
            zero = any(n % B == 0 for n in lengths.values())
            return decoding and no_preempt and len(lengths) == len(labels_in(params)) and (zero or B == 2)
        return sample(rng, random_decode, ok)

    def validate(self, params: dict) -> dict:
        check_scenario(params)
        built = build(params)
        if built.sim.scheduler.waiting or not built.sim.scheduler.running:
            raise ValueError("the setup must leave requests running and none waiting, so the next step decodes")
        return params

    def solve(self, params: dict) -> Solved:
        built, frame, lengths, appended = next_step(params)
        return Solved(appended, {"lengths": lengths, "before": build(params)})

    def prompt(self, params: dict, solved: Solved, lang: str) -> str:
        before = solved.facts["before"]
        running = [before.label(s.seq_id) for s in before.sim.scheduler.running]
        return (setup_story(params, lang) + "\n\n" + requests_table(before, lang, running) + "\n\n"
                + t("ex.t.free_count", lang, n=len(before.bm.free_block_ids)) + "\n\n"
                + t("decode_block.task", lang))

    def parse(self, answer, params: dict, solved: Solved) -> list[str]:
        return sorted(set(answers.parse_labels(answer, list(solved.facts["lengths"]))))

    def diagnose(self, params: dict, solved: Solved, value: list[str]) -> Feedback | None:
        B, lengths = params["block_size"], solved.facts["lengths"]
        zero = sorted(label for label, n in lengths.items() if n % B == 0)
        if value == zero != solved.answer:
            return Feedback("decode_block.mis.mod_zero", {"B": B}, "mod_zero")
        wrong = set(solved.answer) ^ set(value)
        return Feedback("decode_block.partial", {"count": len(lengths) - len(wrong), "total": len(lengths)})

    def answer_text(self, solved: Solved, lang: str) -> str:
        return ", ".join(solved.answer) if solved.answer else t("ex.t.none", lang)

    def solution(self, params: dict, solved: Solved, lang: str) -> str:
        B = params["block_size"]
        lines = []
        for label, n in solved.facts["lengths"].items():
            key = "decode_block.line.yes" if n % B == 1 else "decode_block.line.no"
            lines.append("- " + t(key, lang, label=label, n=n, B=B, r=n % B))
        return "\n".join(lines) + "\n\n" + t("decode_block.solution", lang, answer=self.answer_text(solved, lang))
