"""slot: the KV slot of one token; slot_mapping: the slots of the positions one step computes.

The state is built with the real engine: the free queue is ordered so that admitting request A
gives it the wanted block_table, then the slots come from that block_table through the model
runner's formula (blockviz.slots: slot_of, step_slot_mapping).
"""
from random import Random

from blockviz.exercises import answers
from blockviz.exercises.core import Feedback, Kind, Solved, partial
from blockviz.exercises.setups import build
from blockviz.slots import slot_of, step_slot_mapping
from blockviz.exercises.tables import block_table_row
from blockviz.brief import brief
from blockviz.i18n import t


def request_scenario(block_size: int, block_table: list[int], num_tokens: int) -> dict:
    """Admit A (num_tokens prompt tokens) on a pool whose free queue starts with block_table."""
    num_blocks = max(max(block_table) + 1, len(block_table) + 1)
    prompt = list(range(1, num_tokens + 1))
    return {"block_size": block_size, "num_blocks": num_blocks, "free_order": list(block_table),
            "setup": [["add", "A", prompt, 2], ["step", 1]]}


def engine_block_table(block_size: int, block_table: list[int], num_tokens: int) -> list[int]:
    built = build(request_scenario(block_size, block_table, num_tokens))
    table = list(built.seq("A").block_table)
    assert table == list(block_table), (table, block_table)
    return table


def check_table(params: dict, needed_positions: list[int]) -> dict:
    B, table = params.get("block_size"), params.get("block_table")
    if not isinstance(B, int) or B < 1:
        raise ValueError(f"block_size must be a whole number >= 1, got {brief(B)}")
    if (not isinstance(table, (list, tuple)) or not table or len(set(table)) != len(table)
            or any(not isinstance(b, int) or b < 0 for b in table)):
        raise ValueError(f"block_table must be a list of distinct block ids >= 0, got {brief(table)}")
    table = list(table)
    low, high = (len(table) - 1) * B + 1, len(table) * B
    num_tokens = params.get("num_tokens")
    if num_tokens is None:
        num_tokens = min(max(low, max(needed_positions) + 1), high)
    if not low <= num_tokens <= high:
        raise ValueError(f"a request with a block_table of {len(table)} blocks of {B} holds "
                         f"{low}..{high} tokens, not {num_tokens}")
    bad = [p for p in needed_positions if not 0 <= p < num_tokens]
    if bad:
        raise ValueError(f"position(s) {bad} are outside the request's {num_tokens} tokens (0..{num_tokens - 1})")
    return {**params, "block_table": table, "num_tokens": num_tokens}


def random_table(rng: Random) -> tuple[int, list[int], int]:
    B = rng.choice([2, 4, 4, 4, 8])
    length = rng.randint(2, 3 if B == 8 else 4)
    num_blocks = rng.randint(max(8, length + 2), 16)
    table = rng.sample(range(num_blocks), length)
    num_tokens = rng.randint((length - 1) * B + 1, length * B)
    return B, table, num_tokens


def intro(params: dict, lang: str) -> str:
    B, table, n = params["block_size"], params["block_table"], params["num_tokens"]
    return t("slots.intro", lang, B=B, n=n, last=n - 1, table=table) + "\n\n" + block_table_row(table, lang)


class Slot(Kind):
    name = "slot"
    param_names = ("block_size", "block_table", "num_tokens", "position")
    lesson = 1

    def generate(self, rng: Random) -> dict:
        while True:
            B, table, n = random_table(rng)
            t = rng.randrange(n)
            if table[t // B] != t // B:
                return {"block_size": B, "block_table": table, "num_tokens": n, "position": t}

    def validate(self, params: dict) -> dict:
        t = params.get("position")
        if not isinstance(t, int):
            raise ValueError(f"position must be a whole number, got {brief(t)}")
        return check_table(params, [t])

    def solve(self, params: dict) -> Solved:
        B, t = params["block_size"], params["position"]
        table = engine_block_table(B, params["block_table"], params["num_tokens"])
        return Solved(slot_of(table, B, t), {"table": table, "logical": t // B, "offset": t % B,
                                             "physical": table[t // B]})

    def prompt(self, params: dict, solved: Solved, lang: str) -> str:
        return intro(params, lang) + "\n\n" + t("slot.task", lang, t=params["position"])

    def parse(self, answer, params: dict, solved: Solved) -> int:
        return answers.parse_int(answer)

    def diagnose(self, params: dict, solved: Solved, value: int) -> Feedback | None:
        B, t, f = params["block_size"], params["position"], solved.facts
        table, lb, off, phys = f["table"], f["logical"], f["offset"], f["physical"]
        wrong = [("logical", lb * B + off), ("no_times_b", phys + off), ("position_as_offset", phys * B + t)]
        for shift in (-1, 1):
            if 0 <= lb + shift < len(table):
                wrong.append(("table_index", table[lb + shift] * B + off))
        wrong += [("off_by_one", solved.answer - 1), ("off_by_one", solved.answer + 1)]
        for name, guess in wrong:
            if value == guess != solved.answer:
                return Feedback(f"slots.mis.{name}", {"t": t, "B": B}, name)
        return None

    def hint(self, params: dict, solved: Solved, lang: str) -> str:
        return t("slots.hint", lang)

    def solution(self, params: dict, solved: Solved, lang: str) -> str:
        B, position, f = params["block_size"], params["position"], solved.facts
        return t("slot.solution", lang, t=position, B=B, lb=f["logical"], off=f["offset"], phys=f["physical"],
                 slot=solved.answer)


class SlotMapping(Kind):
    name = "slot_mapping"
    param_names = ("block_size", "block_table", "num_tokens", "positions")
    lesson = 1

    def generate(self, rng: Random) -> dict:
        while True:
            B, table, n = random_table(rng)
            count = rng.randint(3, min(6, n))
            start = rng.randint(0, n - count)
            positions = list(range(start, start + count))
            crosses = start // B != (start + count - 1) // B
            logical_differs = any(table[p // B] != p // B for p in positions)
            if crosses and logical_differs:
                return {"block_size": B, "block_table": table, "num_tokens": n, "positions": positions}

    def validate(self, params: dict) -> dict:
        positions = params.get("positions")
        if (not isinstance(positions, (list, tuple)) or not positions
                or any(not isinstance(p, int) for p in positions)):
            raise ValueError(f"positions must be a non-empty list of whole numbers, got {brief(positions)}")
        positions = list(positions)
        if positions != list(range(positions[0], positions[0] + len(positions))):
            raise ValueError(f"one step computes consecutive positions of a request; got {positions}")
        return {**check_table(params, positions), "positions": positions}

    def solve(self, params: dict) -> Solved:
        B, positions = params["block_size"], params["positions"]
        table = engine_block_table(B, params["block_table"], params["num_tokens"])
        slots = step_slot_mapping(table, B, positions[0], positions[-1] + 1)
        return Solved(slots, {"table": table})

    def prompt(self, params: dict, solved: Solved, lang: str) -> str:
        positions = params["positions"]
        return intro(params, lang) + "\n\n" + t("slot_mapping.task", lang, first=positions[0], last=positions[-1],
                                                  count=len(positions))

    def parse(self, answer, params: dict, solved: Solved) -> list[int]:
        return answers.parse_ints(answer, count=len(params["positions"]))

    def diagnose(self, params: dict, solved: Solved, value: list[int]) -> Feedback | None:
        B, positions, table = params["block_size"], params["positions"], solved.facts["table"]
        right = solved.answer
        models = [
            ("logical", [p // B * B + p % B for p in positions]),
            ("contiguous", [right[0] + i for i in range(len(positions))]),
            ("no_times_b", [table[p // B] + p % B for p in positions]),
            ("off_by_one", [s - 1 for s in right]),
            ("off_by_one", [s + 1 for s in right]),
        ]
        for name, guess in models:
            if value == guess != right:
                key = "slot_mapping.mis.contiguous" if name == "contiguous" else f"slots.mis.{name}"
                return Feedback(key, {"t": positions[0], "B": B}, name)
        return partial("slot_mapping.partial", [p for p, v, s in zip(positions, value, right) if v != s],
                       len(positions))

    def hint(self, params: dict, solved: Solved, lang: str) -> str:
        return t("slots.hint", lang) + " " + t("slot_mapping.hint", lang)

    def solution(self, params: dict, solved: Solved, lang: str) -> str:
        B, table = params["block_size"], solved.facts["table"]
        rows = []
        for p, s in zip(params["positions"], solved.answer):
            rows.append(f"| {p} | {p // B} | {p % B} | {table[p // B]} | {table[p // B]} × {B} + {p % B} = **{s}** |")
        header = t("slot_mapping.solution_header", lang)
        return (header + "\n|---|---|---|---|---|\n" + "\n".join(rows) + "\n\n"
                + t("slot_mapping.solution", lang, answer=", ".join(map(str, solved.answer))))
