"""ref_counts: what ref_count some blocks have after requests share them and release them.

params: a scenario (engine.build) plus `then` (ops run after the state the prompt shows) and
`ask` (block ids). The answer is read from the BlockManager after `then` has run.
"""
from random import Random

from blockviz.exercises import answers
from blockviz.limits import blocks_needed
from blockviz.exercises.core import Feedback, Kind, Solved, partial
from blockviz.exercises.setups import Built, build, check_scenario, encode
from blockviz.exercises.kinds.common import fresh, labels_in, ops_story, sample, settled, shuffled_pool
from blockviz.exercises.params import SCENARIO
from blockviz.exercises.tables import pool_picture
from blockviz.i18n import t
from blockviz.recording import events as ev
from blockviz.brief import brief

SEED_004 = {  # A generates 10, 11, ... and B 22, 23, ... (rule "count"), as in the seed004 scenario preset
    "block_size": 4, "num_blocks": 8, "free_order": [5, 2, 7], "rule": "count",
    "setup": [["add", "A", list(range(10)), 8], ["step", 1]],
    "then": [["add", "B", list(range(8)) + [20, 21], 8], ["step", 1]],
    "ask": [5, 2, 7],
}


def run_then(params: dict) -> tuple[Built, Built, list]:
    before = build(params)
    after = build(params)
    frames = after.run(params["then"])
    return before, after, frames


def then_story(params: dict, after: Built, frames: list, lang: str) -> str:
    return ops_story(params["then"], after, frames, params["block_size"], lang, counts=False)


def random_refs(rng: Random) -> dict:
    B = rng.choice([2, 3, 4, 4])
    a = fresh(rng, rng.randint(2 * B, 4 * B - 1))
    variant = rng.choice(["share", "share", "release", "revive", "exact"])
    m_a = 2 if variant == "release" else 8
    setup = [["add", "A", a, m_a], ["step", 1]]
    src = a
    if variant == "revive":
        c = fresh(rng, rng.randint(2 * B, 3 * B))
        setup = [["add", "C", c, 1]] + setup
        src = c
    full = len(src) // B
    if variant == "exact" and len(a) % B == 0:
        b = a
    else:
        shared = rng.randint(1, max(1, full - 1 if variant != "exact" else full))
        b = src[:B * shared] + fresh(rng, rng.randint(1, B + 1))
    then = [["add", "B", b, 6], ["step", 2 if variant == "release" else 1]]
    num_blocks = rng.randint(10, 14)
    return {**shuffled_pool(rng, B, num_blocks, setup), "then": then, "ask": []}


def choose_ask(params: dict) -> dict | None:
    """Ask about A's blocks (and C's cached ones when C exists)."""
    built = settled(params)
    if built is None:
        return None
    blocks = list(built.seq("A").block_table)
    if "C" in labels_in(params):
        blocks += [b.block_id for b in built.bm.blocks if b.hash != -1 and b.block_id not in blocks]
    return {**params, "ask": blocks[:5]}


class RefCounts(Kind):
    name = "ref_counts"
    param_names = SCENARIO + ("then", "ask")
    lesson = 2

    def generate(self, rng: Random) -> dict:
        def make(r: Random) -> dict:
            return choose_ask(random_refs(r)) or {"ask": []}

        def ok(params: dict) -> bool:
            if not params.get("ask"):
                return False
            try:
                before, after, frames = run_then(params)
            except (ValueError, RuntimeError):
                return False
            changed = any(before.bm.blocks[b].ref_count != after.bm.blocks[b].ref_count for b in params["ask"])
            return changed and not after.sim.scheduler.waiting
        return sample(rng, make, ok)

    def validate(self, params: dict) -> dict:
        check_scenario(params)
        then, ask = params.get("then"), params.get("ask")
        if not isinstance(then, list) or not then:
            raise ValueError("'then' must list the ops that happen after the state the prompt shows")
        n = params["num_blocks"]
        if not isinstance(ask, list) or not ask or any(not isinstance(b, int) or not 0 <= b < n for b in ask):
            raise ValueError(f"'ask' must list block ids in 0..{n - 1}, got {brief(ask)}")
        try:
            run_then(params)
        except (ValueError, RuntimeError, AssertionError, IndexError, TypeError, KeyError) as e:
            raise ValueError(f"'then' cannot run on the engine: {e}") from e
        return params

    def solve(self, params: dict) -> Solved:
        before, after, frames = run_then(params)
        counts = [after.bm.blocks[b].ref_count for b in params["ask"]]
        return Solved(counts, {"before": before, "after": after, "frames": frames})

    def prompt(self, params: dict, solved: Solved, lang: str) -> str:
        f = solved.facts
        return (pool_picture(f["before"], lang) + "\n\n" + t("ref_counts.then", lang) + "\n\n"
                + then_story(params, f["after"], f["frames"], lang) + "\n\n"
                + t("ref_counts.task", lang, blocks=", ".join(map(str, params["ask"]))))

    def parse(self, answer, params: dict, solved: Solved) -> list[int]:
        return answers.parse_ints(answer, count=len(params["ask"]))

    def models(self, params: dict, solved: Solved) -> list[tuple[str, list[int]]]:
        ask, right = params["ask"], solved.answer
        events = [e for frame in solved.facts["frames"] for e in frame.events]
        shared = {b: sum(1 for e in events if isinstance(e, ev.BlockShared) and e.block_id == b) for b in ask}
        revived = {b: sum(1 for e in events if isinstance(e, ev.BlockRevived) and e.block_id == b) for b in ask}
        finished = {e.seq_id for e in events if isinstance(e, ev.Finished)}
        released = {e.block_id for e in events if isinstance(e, ev.BlockReleased) and e.seq_id in finished}
        before = solved.facts["before"].bm
        models = [  # the first that matches names the mistake
            ("release_to_zero", [0 if b in released else r for b, r in zip(ask, right)]),
            ("no_share", [r - shared[b] for b, r in zip(ask, right)]),
            ("free_is_miss", [r - revived[b] for b, r in zip(ask, right)]),
            ("free_plus_one", [r + 1 if revived[b] and before.blocks[b].hash != -1 else r for b, r in zip(ask, right)]),
        ]
        b_op = next((op for op in params["then"] if op[0] == "add"), None)
        if b_op is not None:
            tokens, B = encode(b_op[2]), params["block_size"]
            for seq in solved.facts["before"].sim.seqs.values():
                n = len(tokens) // B
                if n and len(tokens) % B == 0 and seq.block_table[:n] and seq.token_ids[:n * B] == tokens \
                        and len(seq.block_table) >= n:
                    last = seq.block_table[n - 1]
                    models.append(("last_block_hit", [r + 1 if b == last else r for b, r in zip(ask, right)]))
            spans = blocks_needed(len(tokens), B)  # blocks taken for shared because they sit where the new ones do
            for seq in solved.facts["before"].sim.seqs.values():
                table = seq.block_table
                extra = [b for b in table[:spans] if b in ask and not shared[b]]
                if not extra:
                    continue
                partial = extra == [table[-1]] and before.blocks[table[-1]].hash == -1  # never hashed, never hit
                models.append(("partial_block_shared" if partial else "position_shared",
                               [r + 1 if b in extra else r for b, r in zip(ask, right)]))
        return models

    def diagnose(self, params: dict, solved: Solved, value: list[int]) -> Feedback | None:
        right = solved.answer
        keys = {"no_share": "ref_counts.mis.no_share", "free_is_miss": "ref_counts.mis.free_is_miss",
                "release_to_zero": "ref_counts.mis.release_to_zero", "free_plus_one": "ref_counts.mis.free_plus_one",
                "last_block_hit": "ex.prefix.mis.last_block", "partial_block_shared": "ref_counts.mis.partial_block",
                "position_shared": "ref_counts.mis.position_shared"}
        for name, guess in self.models(params, solved):
            if value == guess != right:
                return Feedback(keys[name], {}, name)
        if any(v < 0 for v in value):
            return Feedback("ref_counts.mis.negative", {}, None)
        return partial("ref_counts.partial", [b for b, v, r in zip(params["ask"], value, right) if v != r], len(right))

    def solution(self, params: dict, solved: Solved, lang: str) -> str:
        f = solved.facts
        lines = []
        for b, r in zip(params["ask"], solved.answer):
            old = f["before"].bm.blocks[b].ref_count
            why = []
            for frame in f["frames"]:
                for e in frame.events:
                    if getattr(e, "block_id", None) != b:
                        continue
                    if isinstance(e, ev.BlockShared):
                        why.append(t("ref_counts.why.share", lang, label=f["after"].label(e.seq_id)))
                    elif isinstance(e, ev.BlockRevived):
                        why.append(t("ref_counts.why.revive", lang, label=f["after"].label(e.seq_id)))
                    elif isinstance(e, ev.BlockAllocated):
                        why.append(t("ref_counts.why.allocate", lang, label=f["after"].label(e.seq_id)))
                    elif isinstance(e, ev.BlockAppended):
                        pass
                    elif isinstance(e, ev.BlockReleased):
                        why.append(t("ref_counts.why.release", lang, label=f["after"].label(e.seq_id)))
            because = " (" + "; ".join(why) + ")" if why else ""
            lines.append(f"- {t('ex.t.block', lang)} {b}: {old} → **{r}**{because}")
        return "\n".join(lines) + "\n\n" + t("ref_counts.solution", lang, answer=self.answer_text(solved, lang))
