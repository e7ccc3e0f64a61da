"""pool_states: the six-state classification of some blocks; next_block: which block the next
allocation takes and which hash it evicts.

The states come from blockviz.states.classify (a pure function of the BlockManager); the
allocation from a real step that admits R (its first BlockAllocated event).
"""
from random import Random

from blockviz.limits import blocks_needed
from blockviz.engine.sequence import Sequence
from blockviz.exercises import answers
from blockviz.exercises.answers import AnswerError
from blockviz.exercises.core import Feedback, Kind, Solved, partial
from blockviz.exercises.setups import build, check_scenario, encode
from blockviz.exercises.kinds.common import check_new_request, fresh, sample, settled, shuffled_pool
from blockviz.exercises.params import SCENARIO
from blockviz.exercises.tables import hash_labels, pool_picture, show_blocks
from blockviz.i18n import t
from blockviz.states import BlockState, classify
from blockviz.recording import events as ev
from blockviz.recording.probe import probe_chain
from blockviz.brief import brief

STATE_WORDS = {
    BlockState.FREE: ["free", "f", "空闲"],
    BlockState.CACHED_FREE: ["cached-free", "cf", "reusable", "cached free (reusable)", "free cached",
                             "可复用", "可复用缓存", "缓存空闲", "空闲缓存", "空闲可复用", "可复用空闲"],
    BlockState.STALE_FREE: ["stale-free", "stale", "sf", "shadowed", "stale free (shadowed)",
                            "失效", "过期", "被遮蔽", "陈旧", "失效空闲", "过期空闲", "被遮蔽空闲"],
    BlockState.FILLING: ["filling", "fl", "fill", "填充中", "正在填充", "填充"],
    BlockState.CACHED: ["cached", "c", "已缓存", "缓存", "独占缓存"],
    BlockState.SHARED: ["shared", "s", "共享"],
}
STATE_VOCAB = {word: state.value for state, words in STATE_WORDS.items() for word in words}


def random_rich(rng: Random) -> dict:
    """A pool that tends to hold all six states: a duplicate pair finished in one step (#219:
    one copy becomes stale), a running request with a sharer, maybe a finished stranger."""
    B = rng.choice([2, 3, 4, 4])
    x = fresh(rng, 2 * B + rng.randint(0, B - 1))
    y = fresh(rng, rng.randint(B + 1, 3 * B))
    z = y[:B * rng.randint(1, len(y) // B)] + fresh(rng, rng.randint(1, B))
    ops = [["add", "X", x, 1], ["add", "X2", x, 1], ["step", 1]]
    if rng.random() < 0.5:
        ops += [["add", "W", fresh(rng, rng.randint(B, 2 * B + 1)), 1], ["step", 1]]
    ops += [["add", "Y", y, 6], ["step", 1], ["add", "Z", z, 6], ["step", 1]]
    longest = max(blocks_needed(len(y) + 5, B), blocks_needed(len(z) + 5, B))
    total = 2 * blocks_needed(len(x), B) + blocks_needed(len(y), B) + blocks_needed(len(z), B) + 2
    num_blocks = rng.randint(max(longest, total - 4), total + 1)
    return shuffled_pool(rng, B, num_blocks, ops)


class PoolStates(Kind):
    name = "pool_states"
    param_names = SCENARIO + ("ask",)
    lesson = 2

    def generate(self, rng: Random) -> dict:
        def make(r: Random) -> dict:
            params = random_rich(r)
            built = settled(params)
            if built is None:
                return {**params, "ask": []}
            states = classify(built.bm)
            by_state: dict[BlockState, list[int]] = {}
            for block_id, state in enumerate(states):
                by_state.setdefault(state, []).append(block_id)
            ask = [r.choice(ids) for ids in by_state.values()]
            others = [b for b in range(len(states)) if b not in ask]
            ask += r.sample(others, min(len(others), max(0, 6 - len(ask))))
            return {**params, "ask": sorted(ask[:7])}

        def ok(params: dict) -> bool:
            built = settled(params)
            if built is None or not params["ask"]:
                return False
            return len({classify(built.bm)[b] for b in params["ask"]}) >= 5
        return sample(rng, make, ok)

    def validate(self, params: dict) -> dict:
        check_scenario(params)
        n, ask = params["num_blocks"], params.get("ask")
        if ask is None:
            ask = list(range(n))
        if not isinstance(ask, list) or not ask or any(not isinstance(b, int) or not 0 <= b < n for b in ask):
            raise ValueError(f"'ask' must list block ids in 0..{n - 1}, got {brief(ask)}")
        return {**params, "ask": ask}

    def solve(self, params: dict) -> Solved:
        built = build(params)
        states = classify(built.bm)
        return Solved([states[b].value for b in params["ask"]], {"built": built})

    def prompt(self, params: dict, solved: Solved, lang: str) -> str:
        names = ", ".join(f"`{s.value}`" for s in BlockState)
        return (pool_picture(solved.facts["built"], lang) + "\n\n"
                + t("pool_states.task", lang, blocks=", ".join(map(str, params["ask"])), names=names))

    def parse(self, answer, params: dict, solved: Solved) -> list[str]:
        return answers.parse_words(answer, STATE_VOCAB, count=len(params["ask"]))

    def diagnose(self, params: dict, solved: Solved, value: list[str]) -> Feedback | None:
        pairs = [(b, v, r) for b, v, r in zip(params["ask"], value, solved.answer) if v != r]
        b, v, r = pairs[0]
        confusion = {
            frozenset({"cached-free", "stale-free"}): "pool_states.mis.map_points",
            frozenset({"free", "cached-free"}): "pool_states.mis.free_keeps_hash",
            frozenset({"free", "stale-free"}): "pool_states.mis.free_keeps_hash",
            frozenset({"filling", "cached"}): "pool_states.mis.hash_means_full",
            frozenset({"cached", "shared"}): "pool_states.mis.ref_count",
            frozenset({"filling", "shared"}): "pool_states.mis.ref_count",
        }.get(frozenset({v, r}))
        if confusion is None:
            free_side = {"free", "cached-free", "stale-free"}
            confusion = "pool_states.mis.in_queue" if (v in free_side) != (r in free_side) else "pool_states.partial"
        names = {"pool_states.mis.map_points": "cached_vs_stale", "pool_states.mis.free_keeps_hash": "free_keeps_hash",
                 "pool_states.mis.hash_means_full": "filling_vs_cached", "pool_states.mis.ref_count": "ref_count",
                 "pool_states.mis.in_queue": "in_free_queue"}
        if confusion == "pool_states.partial":
            return partial(confusion, [p[0] for p in pairs], len(value))
        return Feedback(confusion, {"block": b}, names.get(confusion))

    def solution(self, params: dict, solved: Solved, lang: str) -> str:
        bm = solved.facts["built"].bm
        labels = hash_labels(solved.facts["built"])
        lines = []
        for b, state in zip(params["ask"], solved.answer):
            block = bm.blocks[b]
            where = t("pool_states.why.queue" if b in bm.free_block_ids else "pool_states.why.used", lang)
            mapped = bm.hash_to_block_id.get(block.hash)
            facts = t("pool_states.why.facts", lang, where=where, ref=block.ref_count,
                      hash=labels.get(block.hash, "-1"),
                      map="—" if block.hash == -1 else (mapped if mapped is not None else t("ex.t.none", lang)))
            lines.append(f"- {t('ex.t.block', lang)} {b}: {facts} → **{state}**")
        return "\n".join(lines) + "\n\n" + t("pool_states.solution", lang)


class NextBlock(Kind):
    name = "next_block"
    param_names = SCENARIO + ("new", "new_max_tokens")
    lesson = 2

    def generate(self, rng: Random) -> dict:
        target = rng.choice(["cached-free", "cached-free", "stale-free", "stale-free", "free"])
        revive = rng.random() < 0.25

        def make(r: Random) -> dict:
            params = random_rich(r)
            built = settled(params)
            new = fresh(r, r.randint(params["block_size"] + 1, 3 * params["block_size"]))
            if built is not None and revive and built.bm.free_block_ids:
                head = built.bm.blocks[built.bm.free_block_ids[0]]
                first_of_chain = head.hash != -1 and built.bm.compute_hash(head.token_ids) == head.hash
                if first_of_chain and built.bm.hash_to_block_id.get(head.hash) == head.block_id:
                    new = "".join(chr(t) for t in head.token_ids) + new  # R revives the head block
            return {**params, "new": new, "new_max_tokens": 4}

        def ok(params: dict) -> bool:
            built = settled(params)
            if built is None or not built.bm.free_block_ids:
                return False
            try:
                allocation = first_allocation(params)
            except (ValueError, RuntimeError):
                return False
            return allocation is not None and classify(built.bm)[allocation[0]].value == target
        return sample(rng, make, ok)

    def validate(self, params: dict) -> dict:
        params = check_new_request(params)
        if first_allocation(params) is None:
            raise ValueError("R gets no new block here (not admitted, or every block is a hit)")
        return params

    def solve(self, params: dict) -> Solved:
        before = build(params)
        block_id, evicted = first_allocation(params)
        label = hash_labels(before).get(evicted, "none") if evicted != -1 else "none"
        return Solved((block_id, label), {"before": before})

    def prompt(self, params: dict, solved: Solved, lang: str) -> str:
        tokens = encode(params["new"])
        return (pool_picture(solved.facts["before"], lang) + "\n\n"
                + t("ex.prefix.new_request", lang, prompt=show_blocks(tokens, params["block_size"]), n=len(tokens),
                    blocks=(len(tokens) + params["block_size"] - 1) // params["block_size"]) + "\n\n"
                + t("next_block.task", lang))

    def parse(self, answer, params: dict, solved: Solved) -> tuple[int, str]:
        block, label = None, None
        for token in answers.tokens(answer):
            low = token.lower()
            if answers.squash(low) in answers.NONE_WORDS or low == "-1":
                label = "none" if label is None else label
            elif low.startswith("h") and low[1:].isdigit():
                label = low
            elif block is None:
                block = answers.to_int(token)
            else:
                raise AnswerError("next_block.format")
        if block is None or label is None:
            raise AnswerError("next_block.format")
        return block, label

    def diagnose(self, params: dict, solved: Solved, value) -> Feedback | None:
        bm = solved.facts["before"].bm
        block, label = value
        right_block, right_label = solved.answer
        if block != right_block:
            seq = Sequence(encode(params["new"]), block_size=params["block_size"])
            revived = [p.block_id for p in probe_chain(bm, seq) if p.outcome == "hit_free"]
            if block in revived:
                return Feedback("next_block.mis.revived", {}, "revived_is_allocated")
            if block == bm.free_block_ids[-1]:
                return Feedback("next_block.mis.tail", {}, "from_tail")
            return Feedback("next_block.wrong_block", {}, None)
        h = bm.blocks[block].hash
        if h != -1 and label != "none" and right_label == "none":
            return Feedback("next_block.mis.stale", {}, "stale_evicts")
        if label == "none" and right_label != "none":
            return Feedback("next_block.mis.cached_kept", {}, "cached_not_evicted")
        return Feedback("next_block.wrong_hash", {}, None)

    def answer_text(self, solved: Solved, lang: str) -> str:
        block, label = solved.answer
        return f"{block}, {label if label != 'none' else t('ex.t.none', lang)}"

    def solution(self, params: dict, solved: Solved, lang: str) -> str:
        bm = solved.facts["before"].bm
        block, label = solved.answer
        b = bm.blocks[block]
        labels = hash_labels(solved.facts["before"])
        mapped = bm.hash_to_block_id.get(b.hash)
        return t("next_block.solution", lang, block=block, hash=labels.get(b.hash, "-1"),
                 map="—" if b.hash == -1 else (mapped if mapped is not None else t("ex.t.none", lang)),
                 answer=self.answer_text(solved, lang))



def first_allocation(params: dict) -> tuple[int, int] | None:
    built = build(params)
    r = built.add("R", params["new"], params.get("new_max_tokens", 4))
    frame = built.step()
    for e in frame.events:
        if isinstance(e, ev.BlockAllocated) and e.seq_id == r.seq_id:
            return e.block_id, e.evicted_hash
    return None
