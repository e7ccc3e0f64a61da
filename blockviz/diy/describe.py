"""A difference, a call, a scheduler decision and a workload in words (en/zh)."""
from typing import Any, Callable

from blockviz.diy.compare import Mismatch
from blockviz.diy.culprit import Culprit, LoggedCall
from blockviz.diy.workloads import SeededWorkload
from blockviz.i18n import t
from blockviz.text import short_hash

BLOCK_FIELDS = ("ref_count", "hash", "token_ids")
REQUEST_FIELDS = ("block_table", "num_cached_tokens", "status", "num_tokens")
Code = Callable[[Any], str]


def hash_text(h) -> str:
    return "-1" if h == -1 else short_hash(h) if isinstance(h, int) and h >= 0 else str(h)


def call_text(call) -> str:
    method, label, args, _result = call
    return f"{method}({', '.join([label, *map(str, args)])})"


def decided_text(decided, lang: str) -> str:
    if not decided or not decided[1]:
        return t("diy.nothing_scheduled", lang)
    kind = t("diy.prefill" if decided[0] else "diy.decode", lang)
    return f"{kind} " + ", ".join(f"{label}×{n}" for label, n in decided[1])


def value_text(field: str, value, lang: str) -> str:
    if value is None:
        return t("diy.absent", lang)
    if field == "hash":
        return hash_text(value)
    if field == "hash_to_block_id":
        return f"#{value}"
    if field == "used_block_ids":
        return "{" + ", ".join(map(str, sorted(value))) + "}"
    if field in ("token_ids", "free_block_ids", "block_table"):
        return str(list(value))
    if field in ("waiting", "running"):
        return "[" + ", ".join(value) + "]"
    return str(value)


def describe(d: Mismatch, lang: str, code: Code = str) -> str:
    if d.field == "call":
        return t("diy.diff.call", lang, call=code(call_text(d.where)), mine=code(d.mine), engine=code(d.engine))
    if d.field == "calls":
        mine, engine = (call_text(c) if c else t("diy.no_call", lang) for c in (d.mine, d.engine))
        return t("diy.diff.calls", lang, mine=code(mine), engine=code(engine))
    if d.field == "scheduled":
        return t("diy.diff.scheduled", lang, mine=code(decided_text(d.mine, lang)),
                 engine=code(decided_text(d.engine, lang)))
    if d.field == "failed":
        mine, engine = (t("diy.no_error", lang) if v is None else v[:300] for v in (d.mine, d.engine))
        return t("diy.diff.failed", lang, mine=code(mine), engine=code(engine))
    if d.field == "blocks":
        return t("diy.diff.blocks", lang, mine=code(d.mine), engine=code(d.engine))
    mine, engine = code(value_text(d.field, d.mine, lang)), code(value_text(d.field, d.engine, lang))
    if d.field in BLOCK_FIELDS:
        return t("diy.diff.block", lang, where=d.where, field=code(d.field), mine=mine, engine=engine)
    if d.field == "hash_to_block_id":
        return t("diy.diff.map", lang, where=code(hash_text(d.where)), mine=mine, engine=engine)
    if d.field in REQUEST_FIELDS:
        return t("diy.diff.request", lang, where=code(d.where), field=code(d.field), mine=mine, engine=engine)
    return t("diy.diff.whole", lang, field=code(d.field), mine=mine, engine=engine)


def workload_text(seeded: SeededWorkload, lang: str, code: Code = str) -> str:
    w = seeded.workload
    requests = t("diy.sep", lang).join(t("diy.request", lang, label=code(r.label), tokens=code(r.num_prompt_tokens),
                           new=code(r.max_tokens), arrives=code(r.arrival)) for r in w.requests)
    return t("diy.workload", lang, seed=code(seeded.seed), block_size=code(w.block_size),
             num_blocks=code(w.num_blocks), max_num_seqs=code(w.max_num_seqs),
             max_num_batched_tokens=code(w.max_num_batched_tokens), requests=requests)


def place_text(block_id: int, free: tuple[int, ...], lang: str) -> str:
    if block_id not in free:
        return t("diy.place.none", lang)
    k = free.index(block_id)
    return t("diy.place.head" if k == 0 else "diy.place.tail" if k == len(free) - 1 else "diy.place.at", lang, k=k)


def choice_text(call: LoggedCall, args_differ: bool, lang: str, code: Code = str) -> str:
    """What one side's call did, in words: the call its caller made, the block it took, what it returned."""
    if args_differ:
        return t("diy.choice.called", lang, call=code(f"{call.method}({', '.join(map(str, call.args))})"))
    if call.method == "_allocate_block" and isinstance(call.result, int):
        return t("diy.choice.took", lang, block=code(f"#{call.result}"),
                 place=place_text(call.result, call.before.free_block_ids, lang))
    return t("diy.choice.returned", lang, value=code(call.result))


def culprit_text(c: Culprit, lang: str, code: Code = str) -> str:
    """The method at fault, and both sides' choices in words (or, where both returned the same, the
    first difference in the pool it left)."""
    args_differ = c.mine.args != c.engine.args
    callers = c.mine.callers[:-1] if args_differ else c.mine.callers
    via = t("diy.culprit.via", lang, callers=code(" → ".join(callers))) if callers else ""
    if args_differ or c.mine.result != c.engine.result:
        return t("diy.culprit", lang, method=code(c.method), via=via, label=code(c.label),
                 mine=choice_text(c.mine, args_differ, lang, code), engine=choice_text(c.engine, args_differ, lang, code))
    return t("diy.culprit.left", lang, method=code(c.method), via=via, label=code(c.label),
             difference=describe(c.effect, lang, code))
