"""Markdown tables of engine facts in the lesson's language: a step's rows, the pool's blocks,
the probes can_allocate made."""
from __future__ import annotations

from typing import Callable, Iterable

from blockviz.i18n import t
from blockviz.queries import Row, seq_by_label
from blockviz.recording.snapshot import Snapshot


def rows_markdown(rows: list[Row], lang: str, columns: Iterable[str] = ("label", "row", "position", "logical",
                                                                       "offset", "physical", "slot")) -> str:
    columns = tuple(columns)
    head = "| " + " | ".join(t(f"lesson.col.{c}", lang) for c in columns) + " |"
    rule = "|" + "---|" * len(columns)
    body = ["| " + " | ".join(str(getattr(r, c)) for c in columns) + " |" for r in rows]
    return "\n".join([head, rule, *body])


def state_name(state, lang: str) -> str:
    return t(f"state.{state.value}", lang)


def state_meaning(state, lang: str) -> str:
    return t(f"state.{state.value}.meaning", lang)


def blocks_markdown(snapshot: Snapshot, lang: str, blocks: Iterable[int] | None = None,
                    decode: Callable | None = None) -> str:
    """One row per block: the facts the state is derived from, then the state."""
    from blockviz.states import classify_block
    from blockviz.text import short_hash
    cols = ["block", "in_free", "hash", "map", "ref", "state", "holders", "tokens"]
    lines = ["| " + " | ".join(t(f"lesson.col.{c}", lang) for c in cols) + " |", "|" + "---|" * len(cols)]
    for i in (range(snapshot.num_blocks) if blocks is None else blocks):
        b = snapshot.blocks[i]
        mapped = snapshot.hash_to_block_id.get(b.hash) if b.hash != -1 else None
        holders = [s.label for s in snapshot.seqs.values() if i in s.block_table]
        text = (decode(b.token_ids) if decode else " ".join(map(str, b.token_ids))) if b.token_ids else ""
        state = classify_block(snapshot, i)
        lines.append("| " + " | ".join([
            f"#{i}", t("lesson.no" if i in snapshot.used_block_ids else "lesson.yes", lang), short_hash(b.hash),
            "-" if mapped is None else f"#{mapped}", str(b.ref_count), f"**{state_name(state, lang)}**",
            ", ".join(holders) or "-", f"`{text}`" if text else ""]) + " |")
    return "\n".join(lines)


def outcome_name(outcome: str, lang: str) -> str:
    return t(f"outcome.{outcome}", lang)


def probes_markdown(timeline, label: str, step: int, lang: str) -> str:
    """The CacheProbe events of one request in one step: what can_allocate found for each logical block."""
    from blockviz.recording.events import CacheProbe
    from blockviz.text import short_hash
    seq = seq_by_label(timeline.snapshot(step), label)
    B = timeline.snapshot(step).block_size
    probes = [e for e in timeline.events(step) if isinstance(e, CacheProbe) and e.seq_id == seq.seq_id]
    before = timeline.snapshot(step - 1).seqs.get(seq.seq_id) if step > 0 else None
    probed_tokens = seq.token_ids[:before.num_tokens if before else seq.num_prompt_tokens]  # as can_allocate saw them
    cols = ["index", "tokens", "hash", "outcome", "found"]
    lines = ["| " + " | ".join(t(f"lesson.col.{c}", lang) for c in cols) + " |", "|" + "---|" * len(cols)]
    for p in probes:
        tokens = probed_tokens[p.index * B:(p.index + 1) * B]
        text = timeline.decode(tokens).replace("|", "\\|")
        lines.append(f"| {p.index} | `{text}` | {short_hash(p.hash)} | **{outcome_name(p.outcome, lang)}** | "
                     f"{'#' + str(p.block_id) if p.block_id >= 0 else '-'} |")
    return "\n".join(lines)

