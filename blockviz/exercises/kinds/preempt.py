"""preemption: who the scheduler preempts in the next decode step, and which of its blocks
return to the free queue (in the order they join it).

The engine answers: after the setup, one more step runs; its Preempted events name the victims
and BlockReleased events that reach ref_count 0 give the blocks, in deallocate's order.
"""
from random import Random

from blockviz.exercises import answers
from blockviz.exercises.answers import AnswerError
from blockviz.exercises.core import Feedback, Kind, Solved
from blockviz.exercises.setups import build, check_scenario
from blockviz.exercises.kinds.common import fresh, sample, setup_story, shuffled_pool
from blockviz.exercises.params import SCENARIO
from blockviz.exercises.tables import pool_table, requests_table
from blockviz.i18n import t
from blockviz.recording import events as ev


def random_preempt(rng: Random) -> dict:
    B = rng.choice([2, 4, 4])
    n = rng.randint(2, 3)
    lengths = [rng.randint(B + 1, 3 * B) for _ in range(n)]
    a = fresh(rng, lengths[0])
    prompts = [a] + [fresh(rng, k) for k in lengths[1:]]
    share = n == 3 and rng.random() < 0.5
    if share:  # C shares A's first block: admitted a step later, it hits A's used block
        prompts[2] = a[:B] + prompts[2][B:]
    num_blocks = sum((k + B - 1) // B for k in lengths) - (1 if share else 0) + rng.randint(0, 2)
    labels = ["A", "B", "C"]
    ops = []
    for i, (label, prompt) in enumerate(zip(labels, prompts)):
        if share and i == 2:
            ops.append(["step", 1])
        ops.append(["add", label, prompt, num_blocks * B - len(prompt) + 1])
    ops.append(["step", 1])
    params = shuffled_pool(rng, B, num_blocks, ops)
    return until_preemption(params)


def until_preemption(params: dict, limit: int = 40) -> dict:
    """Extend the setup to the step just before the first preemption (if one comes)."""
    try:
        built = build(params)
    except (ValueError, RuntimeError):
        return params
    for extra in range(limit):
        if built.sim.is_finished():
            return params
        frame = built.step()
        if any(isinstance(e, ev.Preempted) for e in frame.events):
            if extra:
                return {**params, "setup": params["setup"] + [["step", extra]]}
            return params
    return params


def next_step(params: dict):
    built = build(params)
    running = [built.label(s.seq_id) for s in built.sim.scheduler.running]
    frame = built.step()
    victims = [built.label(e.seq_id) for e in frame.events if isinstance(e, ev.Preempted)]
    freed = [e.block_id for e in frame.events
             if isinstance(e, ev.BlockReleased) and built.label(e.seq_id) in victims and e.ref_count == 0]
    return victims, freed, running, frame


class Preemption(Kind):
    name = "preemption"
    param_names = SCENARIO
    lesson = 5

    def generate(self, rng: Random) -> dict:
        def ok(params: dict) -> bool:
            try:
                victims, freed, running, frame = next_step(params)
            except (ValueError, RuntimeError):
                return False
            return bool(victims) and len(running) >= 2
        return sample(rng, random_preempt, ok)

    def validate(self, params: dict) -> dict:
        check_scenario(params)
        built = build(params)
        if built.sim.scheduler.waiting or not built.sim.scheduler.running:
            raise ValueError("the setup must leave requests running and none waiting, so the next step decodes")
        if not next_step(params)[0]:
            raise ValueError("the next step preempts nobody; run the setup further (or shrink the pool)")
        return params

    def solve(self, params: dict) -> Solved:
        victims, freed, running, frame = next_step(params)
        before = build(params)
        tables = {before.label(s.seq_id): list(s.block_table) for s in before.sim.scheduler.running}
        lengths = {before.label(s.seq_id): len(s) for s in before.sim.scheduler.running}
        return Solved((victims, freed), {"before": before, "running": running, "tables": tables, "lengths": lengths})

    def prompt(self, params: dict, solved: Solved, lang: str) -> str:
        before, running = solved.facts["before"], solved.facts["running"]
        return (setup_story(params, lang) + "\n\n" + requests_table(before, lang, running) + "\n\n"
                + pool_table(before, lang, tokens=False) + "\n\n"
                + t("preemption.running", lang, queue=" → ".join(running)) + "\n\n"
                + t("ex.t.free_count", lang, n=len(before.bm.free_block_ids)) + "\n\n"
                + t("preemption.task", lang))

    def parse(self, answer, params: dict, solved: Solved) -> tuple[list[str], list[int]]:
        known = solved.facts["running"]
        victims, blocks = [], []
        for token in answers.tokens(answer):
            if answers.squash(token) in answers.NONE_WORDS:
                continue
            if token.upper() in known:
                victims.append(token.upper())
            elif token.isalpha():
                raise AnswerError("ex.answer.unknown_label", token=token, known=", ".join(known))
            else:
                blocks.append(answers.to_int(token))
        if not victims:
            raise AnswerError("preemption.no_victim", known=", ".join(known))
        return victims, blocks

    def same(self, value, solved: Solved) -> bool:
        return (list(value[0]), list(value[1])) == (list(solved.answer[0]), list(solved.answer[1]))

    def diagnose(self, params: dict, solved: Solved, value) -> Feedback | None:
        (victims, blocks), (right_victims, right_blocks) = value, solved.answer
        f = solved.facts
        before = f["before"].bm
        if victims != right_victims:
            B = params["block_size"]
            needy = [label for label in f["running"] if f["lengths"][label] % B == 1]
            if victims[0] in needy and victims[0] not in right_victims:
                return Feedback("preemption.mis.needy", {}, "victim_needs_block")
            return Feedback("preemption.wrong_victim", {}, None)
        tables = [b for label in victims for b in f["tables"][label]]
        in_order = [b for label in victims for b in f["tables"][label] if before.blocks[b].ref_count == 1]
        if blocks == in_order != right_blocks:
            return Feedback("preemption.mis.table_order", {}, "table_order")
        if set(blocks) == set(tables) != set(right_blocks):
            return Feedback("preemption.mis.shared", {}, "shared_blocks_freed")
        if blocks == list(reversed(tables)) != right_blocks:
            return Feedback("preemption.mis.shared", {}, "shared_blocks_freed")
        return Feedback("preemption.wrong_blocks", {}, None)

    def answer_text(self, solved: Solved, lang: str) -> str:
        victims, blocks = solved.answer
        return ", ".join(victims) + ": " + (", ".join(map(str, blocks)) if blocks else t("ex.t.none", lang))

    def solution(self, params: dict, solved: Solved, lang: str) -> str:
        f = solved.facts
        victims, blocks = solved.answer
        B = params["block_size"]
        lines = [t("preemption.solution.why", lang, queue=" → ".join(f["running"]))]
        for label in victims:
            lines.append("- " + t("preemption.solution.victim", lang, label=label,
                                  table=f["tables"][label], reversed=list(reversed(f["tables"][label]))))
        lines.append(t("preemption.solution", lang, answer=self.answer_text(solved, lang), B=B))
        return "\n".join(lines)
