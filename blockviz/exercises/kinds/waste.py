"""wasted_slots: how many slots of the blocks requests hold contain no K/V yet.

Read from the engine after the setup: every used block, filled up to what its owners have
computed (seq.num_cached_tokens); a block reserved for a later prefill chunk counts as empty.
"""
from random import Random

from blockviz.engine.block_manager import BlockManager
from blockviz.limits import blocks_needed
from blockviz.exercises import answers
from blockviz.exercises.core import Feedback, Kind, Solved
from blockviz.exercises.setups import Built, build, check_scenario
from blockviz.exercises.kinds.common import fresh, sample, settled, setup_story
from blockviz.exercises.params import SCENARIO
from blockviz.exercises.tables import requests_table
from blockviz.i18n import t


def holders(built: Built) -> list:
    scheduler = built.sim.scheduler
    return [seq for seq in list(scheduler.running) + list(scheduler.waiting) if seq.block_table]


def empty_slots(built: Built) -> int:
    bm: BlockManager = built.bm
    B = bm.block_size
    filled: dict[int, int] = {}
    for seq in holders(built):
        for i, block_id in enumerate(seq.block_table):
            filled[block_id] = max(filled.get(block_id, 0), min(B, max(0, seq.num_cached_tokens - i * B)))
    return sum(B - filled.get(block_id, 0) for block_id in bm.used_block_ids)


def random_waste(rng: Random) -> dict:
    B = rng.choice([3, 4, 4, 8])
    if rng.random() < 0.6:
        d = rng.randint(0, 2)
        ops, need = [], 0
        for label in ["A", "B", "C"][:rng.randint(2, 3)]:
            n = rng.choice([rng.randint(B + 1, 3 * B), 2 * B])
            ops.append(["add", label, fresh(rng, n), d + 3])
            need += blocks_needed(n + d + 2, B)
        ops.append(["step", 1 + d])
        return {"block_size": B, "num_blocks": need + rng.randint(1, 3), "setup": ops}
    short = rng.randint(2, 2 * B)
    budget = rng.randint(max(short, B + 1), 2 * B + 2)
    long = rng.randint(budget + B, budget + 3 * B)
    ops = [["add", "X", fresh(rng, short), 6], ["step", 1], ["add", "A", fresh(rng, long), 2], ["step", 1]]
    num_blocks = blocks_needed(short + 5, B) + blocks_needed(long + 1, B) + rng.randint(1, 2)
    return {"block_size": B, "num_blocks": num_blocks, "budget": budget, "setup": ops}


class WastedSlots(Kind):
    name = "wasted_slots"
    param_names = SCENARIO
    lesson = 5

    def generate(self, rng: Random) -> dict:
        def ok(params: dict) -> bool:
            built = settled(params) if "budget" not in params else build(params)
            return built is not None and bool(holders(built)) and empty_slots(built) > 0
        return sample(rng, random_waste, ok)

    def validate(self, params: dict) -> dict:
        check_scenario(params)
        if not holders(build(params)):
            raise ValueError("after the setup no request holds a block")
        return params

    def solve(self, params: dict) -> Solved:
        built = build(params)
        return Solved(empty_slots(built), {"built": built})

    def prompt(self, params: dict, solved: Solved, lang: str) -> str:
        built = solved.facts["built"]
        labels = [built.label(seq.seq_id) for seq in holders(built)]
        return (setup_story(params, lang) + "\n\n" + requests_table(built, lang, labels) + "\n\n"
                + t("wasted_slots.task", lang))

    def parse(self, answer, params: dict, solved: Solved) -> int:
        return answers.parse_int(answer)

    def diagnose(self, params: dict, solved: Solved, value: int) -> Feedback | None:
        built = solved.facts["built"]
        B = params["block_size"]
        seqs = holders(built)
        models = [
            ("sampled_token_stored", sum(len(s.block_table) * B - len(s) for s in seqs)),
            ("reserved_blocks_ignored", sum(blocks_needed(s.num_cached_tokens, B) * B - s.num_cached_tokens
                                            for s in seqs)),
            ("full_block_wastes", sum(B - s.num_cached_tokens % B for s in seqs)),
            ("free_blocks_counted", solved.answer + len(built.bm.free_block_ids) * B),
        ]
        for name, guess in models:
            if value == guess != solved.answer:
                return Feedback(f"wasted_slots.mis.{name}", {"B": B}, name)
        return None

    def solution(self, params: dict, solved: Solved, lang: str) -> str:
        built = solved.facts["built"]
        B = params["block_size"]
        lines = []
        for seq in holders(built):
            slots = len(seq.block_table) * B
            lines.append("- " + t("wasted_slots.line", lang, label=built.label(seq.seq_id),
                                  blocks=len(seq.block_table), B=B, slots=slots, computed=seq.num_cached_tokens,
                                  n=len(seq)))
        return "\n".join(lines) + "\n\n" + t("wasted_slots.solution", lang, answer=solved.answer)
