"""A new request R meets the prefix cache: its hit/miss pattern, what can_allocate returns,
the block_table it gets and how many free blocks its admission consumes.

The answers come from the engine: probe_chain (can_allocate's walk, block by block),
BlockManager.can_allocate itself, and a real scheduler step that admits R. `hand_walk` and
`hand_admit` redo the procedure by hand with a switch per known mistake; they only produce the
wrong answers that the feedback recognises.
"""
from dataclasses import dataclass
from random import Random

from blockviz.engine.block_manager import BlockManager
from blockviz.limits import blocks_needed
from blockviz.engine.sequence import Sequence
from blockviz.exercises import answers
from blockviz.exercises.core import Feedback, Kind, Solved, partial
from blockviz.exercises.setups import Built, build, encode
from blockviz.exercises.kinds.common import check_new_request, fresh, sample, settled, shuffled_pool
from blockviz.exercises.params import SCENARIO
from blockviz.exercises.tables import hash_labels, pool_picture, show_blocks
from blockviz.i18n import t
from blockviz.recording import events as ev
from blockviz.recording.probe import probe_chain

OUTCOME_CODE = {"hit_used": "U", "hit_free": "F", "miss": "M", "mismatch": "M", "skipped": "-", "not_probed": "-"}
CODE_WORDS = {
    "U": ["U", "used", "hit used", "hit_used", "hit on used", "shared", "share",
          "命中占用", "占用", "共享", "命中使用中"],
    "F": ["F", "free", "hit free", "hit_free", "hit on free", "revive", "revived", "命中空闲", "空闲", "复活"],
    "M": ["M", "miss", "missed", "mismatch", "未命中", "不命中", "缺失"],
    "-": ["-", "skip", "skipped", "not probed", "not_probed", "none", "n/a", "x",
          "不查", "未查", "跳过", "不探测", "未探测"],
}
VOCAB = {word: code for code, words in CODE_WORDS.items() for word in words}


def new_seq(params: dict) -> Sequence:
    return Sequence(encode(params["new"]), block_size=params["block_size"])


@dataclass
class Admission:
    before: Built            # the setup, untouched (what the prompt shows)
    codes: list[str]         # per logical block of R, from probe_chain
    hit_ids: list[int]       # the block each probe found (-1 if none)
    can_allocate: int        # BlockManager.can_allocate on the setup
    table: list[int] | None  # R's block_table after the step that admits it (None if not admitted)
    cost: int | None         # free blocks that admission took (allocated + revived)


def admission(params: dict) -> Admission:
    before = build(params)
    seq = new_seq(params)
    probes = probe_chain(before.bm, seq)
    result = BlockManager.can_allocate(before.bm, seq)  # the faithful method, without recording
    table = cost = None
    if result != -1:
        after = build(params)
        r = after.add("R", params["new"], params["new_max_tokens"])
        frame = after.step()
        table = list(r.block_table)
        cost = sum(1 for e in frame.events
                   if isinstance(e, (ev.BlockAllocated, ev.BlockRevived)) and e.seq_id == r.seq_id)
    return Admission(before, [OUTCOME_CODE[p.outcome] for p in probes], [p.block_id for p in probes],
                     result, table, cost)


# --- the procedure by hand, with one switch per known mistake --------------------------------

def hand_walk(bm: BlockManager, tokens: list[int], block_size: int, probe_last: bool = False,
              stop_at_miss: bool = True, free_is_miss: bool = False) -> tuple[list[str], list[int]]:
    codes, ids = [], []
    h, walking = -1, True
    n = (len(tokens) + block_size - 1) // block_size
    for i in range(n):
        block = tokens[i * block_size:(i + 1) * block_size]
        h = bm.compute_hash(block, h)
        if (i == n - 1 and not probe_last) or not walking or len(block) < block_size:
            codes.append("-"), ids.append(-1)
            continue
        block_id = bm.hash_to_block_id.get(h, -1)
        if block_id == -1 or bm.blocks[block_id].token_ids != block or (
                free_is_miss and block_id not in bm.used_block_ids):
            codes.append("M"), ids.append(-1)
            walking = not stop_at_miss
            continue
        codes.append("U" if block_id in bm.used_block_ids else "F"), ids.append(block_id)
    return codes, ids


def hand_admit(bm: BlockManager, codes: list[str], ids: list[int], skip_revived: bool = True,
               from_tail: bool = False, use_hits: bool = True) -> list[int]:
    queue = list(bm.free_block_ids)
    if skip_revived and use_hits:
        queue = [b for b in queue if b not in {i for c, i in zip(codes, ids) if c == "F"}]
    table = []
    for code, block_id in zip(codes, ids):
        if use_hits and code in "UF":
            table.append(block_id)
        elif queue:
            table.append(queue.pop(-1 if from_tail else 0))
    return table


def hand_cost(codes: list[str], free_hits_cost: bool = True, used_hits_cost: bool = False) -> int:
    return sum(1 for c in codes if c in "M-" or (c == "F" and free_hits_cost) or (c == "U" and used_hits_cost))


def prompt_body(params: dict, solved: Solved, lang: str) -> str:
    adm = solved.facts["adm"]
    tokens = encode(params["new"])
    return (pool_picture(adm.before, lang) + "\n\n"
            + t("ex.prefix.new_request", lang, prompt=show_blocks(tokens, params["block_size"]), n=len(tokens),
                blocks=len(adm.codes)))


def walk_lines(params: dict, adm: Admission, lang: str) -> str:
    """The walk, block by block, for solutions."""
    labels = hash_labels(adm.before)
    B = params["block_size"]
    tokens = encode(params["new"])
    lines = []
    for i, (code, block_id) in enumerate(zip(adm.codes, adm.hit_ids)):
        block = show_blocks(tokens[i * B:(i + 1) * B], B)
        last = i == len(adm.codes) - 1
        key = {"U": "ex.prefix.walk.used", "F": "ex.prefix.walk.free", "M": "ex.prefix.walk.miss"}.get(
            code, "ex.prefix.walk.last" if last else "ex.prefix.walk.skip")
        lines.append(f"- {i}: {block} — " + t(key, lang, block=block_id,
                                                hash=labels.get(adm.before.bm.blocks[block_id].hash, "?")
                                                if block_id != -1 else ""))
    return "\n".join(lines)


# --- random scenarios ------------------------------------------------------------------------

def random_prefix(rng: Random, tight: bool = False) -> dict:
    """A running request A, a finished C (its full blocks stay cached), maybe D, then R.
    tight: the smallest pool that runs the setup, and a longer R (can_allocate may say -1)."""
    B = rng.choice([2, 3, 4, 4, 4])

    def plen() -> int:
        return rng.choice([rng.randint(B + 1, 3 * B), 2 * B, 3 * B])

    a, c = fresh(rng, plen()), fresh(rng, plen())
    setup = [["add", "A", a, 6], ["add", "C", c, 1], ["step", 1]]
    sources = [a, c]
    if rng.random() < 0.5:
        d = c[:B * rng.randint(0, len(c) // B)] + fresh(rng, rng.randint(1, 2 * B))
        setup += [["add", "D", d, 1], ["step", 1]]
        sources.append(d)
    src = rng.choice(sources)
    full = len(src) // B
    mode = rng.random()
    if mode < 0.2:
        new = src  # the whole prompt again: its last block is never a hit, even when full
    elif mode < 0.9:
        new = src[:B * rng.randint(1, max(1, full))] + fresh(rng, rng.randint(1, (4 if tight else 2) * B))
    else:
        new = fresh(rng, plen())
    need = blocks_needed(len(a) + 5, B) + blocks_needed(len(c), B)
    num_blocks = need if tight else rng.randint(need, need + 5)
    num_blocks = max(num_blocks, blocks_needed(len(new) + 3, B))
    return {**shuffled_pool(rng, B, num_blocks, setup), "new": new, "new_max_tokens": 4}


def sample_prefix(rng: Random, accept, tight: bool = False) -> dict:
    def ok(params: dict) -> bool:
        if settled(params) is None:
            return False
        return accept(admission(params))
    return sample(rng, lambda r: random_prefix(r, tight), ok)


class PrefixKind(Kind):
    param_names = SCENARIO + ("new", "new_max_tokens")
    lesson = 3

    def validate(self, params: dict) -> dict:
        return check_new_request(params)

    def solve(self, params: dict) -> Solved:
        adm = admission(params)
        return Solved(self.answer_of(adm), {"adm": adm})

    def answer_of(self, adm: Admission):
        raise NotImplementedError

    def prompt(self, params: dict, solved: Solved, lang: str) -> str:
        return prompt_body(params, solved, lang) + "\n\n" + t(f"{self.name}.task", lang)

    def hand(self, params: dict, solved: Solved, **switches) -> tuple[list[str], list[int]]:
        return hand_walk(solved.facts["adm"].before.bm, encode(params["new"]), params["block_size"], **switches)


class HitPattern(PrefixKind):
    name = "hit_pattern"

    def generate(self, rng: Random) -> dict:
        trap = rng.random() < 0.3
        return sample_prefix(rng, lambda adm: any(c in "UF" for c in adm.codes)
                             and (not trap or adm.codes[-1] == "-" and len(adm.codes) > 1))

    def answer_of(self, adm: Admission) -> list[str]:
        return adm.codes

    def parse(self, answer, params: dict, solved: Solved) -> list[str]:
        return answers.parse_words(answer, VOCAB, count=len(solved.answer))

    def diagnose(self, params: dict, solved: Solved, value: list[str]) -> Feedback | None:
        right = solved.answer
        last, _ = self.hand(params, solved, probe_last=True)
        if value == last != right:
            return Feedback("ex.prefix.mis.last_block", {}, "last_block_hit")
        after, _ = self.hand(params, solved, stop_at_miss=False)
        if value == after != right:
            return Feedback("ex.prefix.mis.hit_after_miss", {}, "hit_after_miss")
        if value[-1] in "UF":
            return Feedback("ex.prefix.mis.last_block", {}, "last_block_hit")
        wrong = [i for i, (v, r) in enumerate(zip(value, right)) if v != r]
        free_miss, _ = self.hand(params, solved, free_is_miss=True)
        if "F" in right and (value == free_miss or all((value[i], right[i]) == ("M", "F") for i in wrong)):
            return Feedback("ex.prefix.mis.free_is_miss", {}, "free_is_miss")  # which blocks would give it away
        if all({value[i], right[i]} == {"U", "F"} for i in wrong):
            return Feedback("hit_pattern.mis.used_free", {"blocks": ", ".join(map(str, wrong))}, "used_vs_free")
        if all({value[i], right[i]} == {"M", "-"} for i in wrong):
            return Feedback("hit_pattern.mis.miss_skip", {"blocks": ", ".join(map(str, wrong))}, "miss_vs_skip")
        return partial("hit_pattern.partial", wrong, len(right))

    def solution(self, params: dict, solved: Solved, lang: str) -> str:
        adm = solved.facts["adm"]
        return (walk_lines(params, adm, lang) + "\n\n"
                + t("hit_pattern.solution", lang, answer=self.answer_text(solved, lang)))


class CanAllocate(PrefixKind):
    name = "can_allocate"

    def generate(self, rng: Random) -> dict:
        want_fail = rng.random() < 0.35
        return sample_prefix(rng, lambda adm: (adm.can_allocate == -1) == want_fail
                             and any(c in "UF" for c in adm.codes), tight=want_fail)

    def answer_of(self, adm: Admission) -> int:
        return adm.can_allocate

    def parse(self, answer, params: dict, solved: Solved) -> int:
        return answers.parse_int(answer)

    def diagnose(self, params: dict, solved: Solved, value: int) -> Feedback | None:
        adm, right = solved.facts["adm"], solved.answer
        codes = adm.codes
        hits = sum(1 for c in codes if c in "UF")
        free = len(adm.before.bm.free_block_ids)
        need = hand_cost(codes)
        last, _ = self.hand(params, solved, probe_last=True)
        after, _ = self.hand(params, solved, stop_at_miss=False)
        if right != -1 and value == right + 1 and last[-1] in "UF":
            return Feedback("ex.prefix.mis.last_block", {}, "last_block_hit")
        free_miss, _ = self.hand(params, solved, free_is_miss=True)
        if "F" in codes and value == sum(1 for c in free_miss if c == "U") != right:
            return Feedback("ex.prefix.mis.free_is_miss", {}, "free_is_miss")
        if right == -1 and value == hits and hand_cost(codes, free_hits_cost=False) <= free < need:
            return Feedback("ex.prefix.mis.free_hit_costs_nothing", {}, "free_hit_costs_nothing")
        if right == -1 and value == hits:
            return Feedback("can_allocate.mis.not_enough", {}, "not_enough")
        if right != -1 and value == -1:
            return Feedback("can_allocate.mis.enough", {}, "enough")
        if value == need != right or value == len(codes) != right:
            return Feedback("can_allocate.mis.returns_need", {}, "returns_need")
        if value == sum(1 for c in after if c in "UF") != right:
            return Feedback("ex.prefix.mis.hit_after_miss", {}, "hit_after_miss")
        return None

    def solution(self, params: dict, solved: Solved, lang: str) -> str:
        adm = solved.facts["adm"]
        hits = sum(1 for c in adm.codes if c in "UF")
        used = sum(1 for c in adm.codes if c == "U")
        return (walk_lines(params, adm, lang) + "\n\n"
                + t("can_allocate.solution", lang, hits=hits, blocks=len(adm.codes), used=used,
                    need=len(adm.codes) - used, free=len(adm.before.bm.free_block_ids), answer=solved.answer))


class AdmittedKind(PrefixKind):
    """Kinds that need R admitted."""

    def validate(self, params: dict) -> dict:
        params = check_new_request(params)
        if admission(params).can_allocate == -1:
            raise ValueError("the new request R cannot be admitted here (can_allocate returns -1); "
                             "ask the can_allocate kind instead")
        return params


class BlockTable(AdmittedKind):
    name = "block_table"

    def generate(self, rng: Random) -> dict:
        return sample_prefix(rng, lambda adm: adm.table is not None and any(c in "UF" for c in adm.codes)
                             and len(adm.codes) > 1)

    def answer_of(self, adm: Admission) -> list[int]:
        return adm.table

    def parse(self, answer, params: dict, solved: Solved) -> list[int]:
        return answers.parse_ints(answer, count=len(solved.answer))

    def diagnose(self, params: dict, solved: Solved, value: list[int]) -> Feedback | None:
        right, bm = solved.answer, solved.facts["adm"].before.bm
        codes, ids = self.hand(params, solved)
        models = [
            ("last_block_hit", "ex.prefix.mis.last_block", hand_admit(bm, *self.hand(params, solved, probe_last=True))),
            ("hit_after_miss", "ex.prefix.mis.hit_after_miss",
             hand_admit(bm, *self.hand(params, solved, stop_at_miss=False))),
            ("ignored_hits", "block_table.mis.ignored_hits", hand_admit(bm, codes, ids, use_hits=False)),
            ("from_tail", "block_table.mis.from_tail", hand_admit(bm, codes, ids, from_tail=True)),
            ("revived_stays_queued", "block_table.mis.revived", hand_admit(bm, codes, ids, skip_revived=False)),
        ]
        for name, key, guess in models:
            if value == guess != right:
                return Feedback(key, {}, name)
        if len(set(value)) < len(value):
            return Feedback("block_table.mis.duplicate", {}, "duplicate")
        return partial("block_table.partial", [i for i, (v, r) in enumerate(zip(value, right)) if v != r], len(right))

    def solution(self, params: dict, solved: Solved, lang: str) -> str:
        adm = solved.facts["adm"]
        queue = [b for b in adm.before.bm.free_block_ids
                 if b not in {i for c, i in zip(adm.codes, adm.hit_ids) if c == "F"}]
        return (walk_lines(params, adm, lang) + "\n\n"
                + t("block_table.solution", lang, queue=" → ".join(map(str, queue)) or "—",
                    answer=self.answer_text(solved, lang)))


class AdmissionCost(AdmittedKind):
    name = "admission_cost"

    def generate(self, rng: Random) -> dict:
        want_free = rng.random() < 0.6
        return sample_prefix(rng, lambda adm: adm.cost is not None and ("F" in adm.codes) == want_free
                             and any(c in "UF" for c in adm.codes))

    def answer_of(self, adm: Admission) -> int:
        return adm.cost

    def parse(self, answer, params: dict, solved: Solved) -> int:
        return answers.parse_int(answer)

    def diagnose(self, params: dict, solved: Solved, value: int) -> Feedback | None:
        right = solved.answer
        codes, _ = self.hand(params, solved)
        last, _ = self.hand(params, solved, probe_last=True)
        after, _ = self.hand(params, solved, stop_at_miss=False)
        models = [
            ("free_hit_costs_nothing", "ex.prefix.mis.free_hit_costs_nothing", hand_cost(codes, free_hits_cost=False)),
            ("used_hit_costs", "admission_cost.mis.used_hit_costs", hand_cost(codes, used_hits_cost=True)),
            ("last_block_hit", "ex.prefix.mis.last_block", hand_cost(last)),
            ("hit_after_miss", "ex.prefix.mis.hit_after_miss", hand_cost(after)),
        ]
        for name, key, guess in models:
            if value == guess != right:
                return Feedback(key, {}, name)
        return None

    def solution(self, params: dict, solved: Solved, lang: str) -> str:
        adm = solved.facts["adm"]
        count = {c: adm.codes.count(c) for c in "UFM-"}
        return (walk_lines(params, adm, lang) + "\n\n"
                + t("admission_cost.solution", lang, used=count["U"], revived=count["F"],
                    new=count["M"] + count["-"], answer=solved.answer))
