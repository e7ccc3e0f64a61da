"""The batch the model runner builds for a step the scheduler really scheduled (lesson 07).

prefill_batch: cu_seqlens_q, cu_seqlens_k or the slot_mapping of a prefill step in which some
requests have a cached prefix (or an earlier chunk). decode_mask: how many of one request's gathered
keys paged_decode_attention's mask hides (max(context_lens) − context_len: decode gathers keys up to
the batch's longest context).

The setup runs on the Simulator, then one more step; engine.next_batch captures the sequences the
scheduler hands to compute and runs ModelRunner.prepare_prefill / prepare_decode on them
(model_inputs.prepare_inputs). The answers are read from what those built.
"""
from itertools import accumulate
from random import Random

from blockviz.limits import blocks_needed
from blockviz.exercises import answers
from blockviz.exercises.core import Feedback, Kind, Solved, partial
from blockviz.exercises.setups import StepBatch, build, check_scenario, next_batch
from blockviz.slots import step_slot_mapping
from blockviz.exercises.kinds.common import fresh, sample, setup_story, shuffled_pool
from blockviz.exercises.params import SCENARIO
from blockviz.exercises.tables import show_blocks, table
from blockviz.i18n import t
from blockviz.recording import events as ev
from blockviz.brief import brief

PREFILL_ASKS = ("cu_seqlens_q", "cu_seqlens_k", "slot_mapping")


def batch_of(params: dict) -> StepBatch:
    """The batch of the step after the setup."""
    return next_batch(build(params))[0]


def checked_batch(params: dict, is_prefill: bool) -> StepBatch:
    check_scenario(params)
    built = build(params)
    if built.sim.is_finished():
        raise ValueError("the setup leaves nothing to run; add the requests the question is about")
    batch, frame = next_batch(built)
    if batch.is_prefill != is_prefill:
        raise ValueError(f"the step after the setup is a {'prefill' if batch.is_prefill else 'decode'} step")
    if any(isinstance(e, ev.Preempted) for e in frame.events):
        raise ValueError("the step after the setup preempts a request; choose a setup with room")
    return batch


def batch_table(params: dict, batch: StepBatch, lang: str, prefill: bool) -> str:
    rows = []
    for i, label in enumerate(batch.labels):
        row = [label, show_blocks(batch.tokens[i], params["block_size"]), batch.lengths[i]]
        rows.append(row + ([batch.cached[i]] if prefill else []) + [str(batch.tables[i])])
    header = [t("ex.t.request", lang), t("ex.t.tokens", lang), "len(seq)"]
    header += ["num_cached_tokens"] if prefill else []
    return table(header + ["block_table"], rows)


def sums(values: list[int]) -> list[int]:
    return [0] + list(accumulate(values))


def random_prefill(rng: Random) -> dict:
    """A ran before; then a request with a cached prefix and a fresh one arrive together. Or a long
    prompt is chunked by the token budget: its next chunk runs alone or beside a newcomer."""
    B = rng.choice([2, 3, 4, 4])
    if rng.random() < 0.75:
        a = fresh(rng, rng.randint(2 * B, 4 * B - 1))
        setup = [["add", "A", a, rng.choice([1, 6])], ["step", 1]]
        arrivals = [["add", "B", a[:B * rng.randint(1, len(a) // B)] + fresh(rng, rng.randint(1, 2 * B)), 2],
                    ["add", "C", fresh(rng, rng.randint(2, 2 * B + 1)), 2]]
        rng.shuffle(arrivals)
        setup += arrivals
        budget = None
        prompts = [a] + [op[2] for op in arrivals]
    else:
        budget = rng.randint(B + 1, 3 * B)
        x, c = fresh(rng, rng.randint(budget + 1, 3 * budget)), fresh(rng, rng.randint(2, budget))
        setup = [["add", "X", x, 2], ["step", 1]] + ([["add", "C", c, 2]] if rng.random() < 0.6 else [])
        prompts = [x, c]
    need = sum(blocks_needed(len(p) + 2, B) for p in prompts)
    num_blocks = rng.randint(need, need + 4)
    params = shuffled_pool(rng, B, num_blocks, setup)
    if budget:
        params["budget"] = budget
    return params


class PrefillBatch(Kind):
    name = "prefill_batch"
    param_names = SCENARIO + ("ask",)
    lesson = 7

    def generate(self, rng: Random) -> dict:
        ask = rng.choice(PREFILL_ASKS)

        def ok(params: dict) -> bool:
            try:
                batch = checked_batch(params, True)
            except (ValueError, RuntimeError):
                return False
            chunked = any(c + n < length for c, n, length in zip(batch.cached, batch.scheduled, batch.lengths))
            small = ask != "slot_mapping" or sum(batch.scheduled) <= 12
            return (len(batch.labels) >= 2 or chunked) and any(batch.cached) and small
        return {**sample(rng, random_prefill, ok), "ask": ask}

    def validate(self, params: dict) -> dict:
        if params.get("ask") not in PREFILL_ASKS:
            raise ValueError(f"ask must be one of {PREFILL_ASKS}, got {brief(params.get('ask'))}")
        try:
            checked_batch(params, True)
        except RuntimeError as e:
            raise ValueError(f"the scenario cannot run on the engine: {e}") from e
        return params

    def solve(self, params: dict) -> Solved:
        batch = batch_of(params)
        return Solved(list(batch.inputs[params["ask"]]), {"batch": batch})

    def prompt(self, params: dict, solved: Solved, lang: str) -> str:
        batch = solved.facts["batch"]
        return (setup_story(params, lang) + "\n\n" + t("prefill_batch.batch", lang) + "\n\n"
                + batch_table(params, batch, lang, prefill=True) + "\n\n"
                + t("prefill_batch.task", lang, name=params["ask"]))

    def parse(self, answer, params: dict, solved: Solved) -> list[int]:
        return answers.parse_ints(answer)

    def models(self, params: dict, batch: StepBatch) -> list[tuple[str, list[int]]]:
        q, k = batch.inputs["cu_seqlens_q"], batch.inputs["cu_seqlens_k"]
        lens_q, lens_k = [b - a for a, b in zip(q, q[1:])], [b - a for a, b in zip(k, k[1:])]
        ask, B = params["ask"], params["block_size"]
        if ask == "cu_seqlens_q":
            return [("no_leading_zero", q[1:]), ("cached_in_q", k), ("cached_in_q", k[1:]),
                    ("not_cumulative", [0] + lens_q), ("not_cumulative", lens_q),
                    ("budget_ignored", sums([n - c for n, c in zip(batch.lengths, batch.cached)]))]
        if ask == "cu_seqlens_k":
            return [("no_leading_zero", k[1:]), ("q_for_k", q), ("q_for_k", q[1:]),
                    ("not_cumulative", [0] + lens_k), ("not_cumulative", lens_k),
                    ("whole_prompt", sums(batch.lengths))]
        ends = [c + s for c, s in zip(batch.cached, batch.scheduled)]
        rewritten = [slot for table_, end in zip(batch.tables, ends) for slot in step_slot_mapping(table_, B, 0, end)]
        total = len(batch.inputs["slot_mapping"])
        return [("cached_rewritten", rewritten), ("positions_not_slots", batch.inputs["positions"]),
                ("rows_not_slots", list(range(total)))]

    def diagnose(self, params: dict, solved: Solved, value: list[int]) -> Feedback | None:
        right, batch = solved.answer, solved.facts["batch"]
        for name, guess in self.models(params, batch):
            if value == guess != right:
                return Feedback(f"prefill_batch.mis.{name}", {}, name)
        if len(value) != len(right):
            return Feedback("ex.answer.count", {"expected": len(right), "got": len(value)})
        wrong = [i for i, (v, r) in enumerate(zip(value, right)) if v != r]
        if params["ask"] == "slot_mapping":
            return partial("prefill_batch.partial.rows", wrong, len(right))
        return partial("prefill_batch.partial.entries", wrong, len(right))

    def hint(self, params: dict, solved: Solved, lang: str) -> str:
        return t("prefill_batch.hint", lang, detail=t(f"prefill_batch.hint.{params['ask']}", lang))

    def solution(self, params: dict, solved: Solved, lang: str) -> str:
        batch = solved.facts["batch"]
        q, k = batch.inputs["cu_seqlens_q"], batch.inputs["cu_seqlens_k"]
        rows = []
        for i, label in enumerate(batch.labels):
            start, end = batch.cached[i], batch.cached[i] + batch.scheduled[i]
            slots = ", ".join(map(str, batch.inputs["slot_mapping"][q[i]:q[i + 1]]))
            rows.append(f"| {label} | {start} | {start}..{end - 1} | {batch.scheduled[i]} | {end} | {slots} |")
        return (t("prefill_batch.solution_header", lang) + "\n|---|---|---|---|---|---|\n" + "\n".join(rows)
                + "\n\n" + t("prefill_batch.solution", lang, q=", ".join(map(str, q)), k=", ".join(map(str, k)),
                               answer=self.answer_text(solved, lang)))


def random_decode(rng: Random) -> dict:
    """Two or three requests of different lengths, decoding."""
    B = rng.choice([2, 3, 4, 4, 8])
    d = rng.randint(0, 2)
    setup, need = [], 0
    for label in ["A", "B", "C"][:rng.randint(2, 3)]:
        prompt_len = rng.randint(1, 3 * B + 1)
        setup.append(["add", label, fresh(rng, prompt_len), d + 4])
        need += blocks_needed(prompt_len + d + 3, B)
    setup.append(["step", 1 + d])
    num_blocks = need + rng.randint(1, 3)
    return shuffled_pool(rng, B, num_blocks, setup)


class DecodeMask(Kind):
    name = "decode_mask"
    param_names = SCENARIO + ("label",)
    lesson = 7

    def generate(self, rng: Random) -> dict:
        def ok(params: dict) -> bool:
            try:
                batch = checked_batch(params, False)
            except (ValueError, RuntimeError):
                return False
            widths = {len(t) for t in batch.tables}
            return len(batch.labels) >= 2 and len(widths) >= 2
        params = sample(rng, random_decode, ok)
        batch = batch_of(params)
        width = max(len(t) for t in batch.tables)
        shorter = [label for label, t in zip(batch.labels, batch.tables) if len(t) < width]
        label = rng.choice(shorter if shorter and rng.random() < 0.75 else batch.labels)
        return {**params, "label": label}

    def validate(self, params: dict) -> dict:
        try:
            batch = checked_batch(params, False)
        except RuntimeError as e:
            raise ValueError(f"the scenario cannot run on the engine: {e}") from e
        if params.get("label") not in batch.labels:
            raise ValueError(f"label must name a request the decode step computes ({', '.join(batch.labels)}), "
                             f"got {brief(params.get('label'))}")
        return params

    def solve(self, params: dict) -> Solved:
        batch = batch_of(params)
        i = batch.labels.index(params["label"])
        padded = batch.inputs["block_tables"][i]
        context = batch.inputs["context_lens"][i]
        gathered = max(batch.inputs["context_lens"])  # paged_decode_attention's max_len
        return Solved(gathered - context, {"batch": batch, "i": i, "padded": padded, "context": context,
                                           "gathered": gathered})

    def prompt(self, params: dict, solved: Solved, lang: str) -> str:
        return (setup_story(params, lang) + "\n\n" + t("decode_mask.batch", lang) + "\n\n"
                + batch_table(params, solved.facts["batch"], lang, prefill=False) + "\n\n"
                + t("decode_mask.task", lang, label=params["label"]))

    def parse(self, answer, params: dict, solved: Solved) -> int:
        return answers.parse_amount(answer)

    def diagnose(self, params: dict, solved: Solved, value: int) -> Feedback | None:
        f, B = solved.facts, params["block_size"]
        own = len(f["batch"].tables[f["i"]])
        models = [("own_blocks", own * B - f["context"]), ("current_not_key", solved.answer + 1),
                  ("visible_keys", f["context"]), ("whole_blocks", len(f["padded"]) * B - f["context"]),
                  ("gathered_keys", f["gathered"])]
        for name, guess in models:
            if value == guess != solved.answer:
                return Feedback(f"decode_mask.mis.{name}", {}, name)
        return None

    def solution(self, params: dict, solved: Solved, lang: str) -> str:
        f = solved.facts
        return t("decode_mask.solution", lang, label=params["label"], width=len(f["padded"]), row=f["padded"],
                 gathered=f["gathered"], context=f["context"], answer=solved.answer)
