"""One line of narration per event, in English or Chinese, and the event log of a step as SVG."""
from typing import Callable, Iterable

from blockviz.i18n import t
from blockviz.text import short_hash
from blockviz.recording import events as ev
from blockviz.views.layout import NOTEBOOK, Layout
from blockviz.views.svg import CHAR_WIDTH, clip, esc, svg_document, text, text_width, visible

Decode = Callable[[tuple[int, ...]], str]
MAX_LINES = NOTEBOOK.max_events  # a big prefill emits thousands of events; the log shows the first ones and a count


def _token(event: ev.TokenSampled, decode: Decode | None) -> str:
    shown = event.text or (decode((event.token_id,)) if decode else "")
    return f"“{shown}” ({event.token_id})" if shown else str(event.token_id)


def narrate(event: ev.Event, labels: dict[int, str], lang: str = "en", decode: Decode | None = None) -> str:
    seq = labels.get(getattr(event, "seq_id", -1), f"#{getattr(event, 'seq_id', '?')}")
    match event:
        case ev.RequestAdded():
            return t("ev.add", lang, seq=seq, n=event.num_prompt_tokens)
        case ev.CacheProbe():
            where = f" → #{event.block_id}" if event.block_id >= 0 else ""
            key = "ev.probe_skip" if event.outcome in ("skipped", "not_probed") else "ev.probe"
            return t(key, lang, seq=seq, i=event.index, outcome=t(f"outcome.{event.outcome}", lang),
                     hash=short_hash(event.hash), where=where)
        case ev.CanAllocate() if event.result == -1:
            return t("ev.can_allocate_no", lang, seq=seq, new=event.num_new_blocks, free=event.num_free_blocks)
        case ev.CanAllocate():
            return t("ev.can_allocate", lang, seq=seq, result=event.result, new=event.num_new_blocks,
                     free=event.num_free_blocks)
        case ev.BlockAllocated():
            extra = ""
            if event.evicted_hash != -1:
                extra = t("ev.evict", lang, hash=short_hash(event.evicted_hash))
            elif event.dropped_hash != -1:
                extra = t("ev.drop", lang, hash=short_hash(event.dropped_hash))
            return t("ev.allocate", lang, seq=seq, block=event.block_id, extra=extra)
        case ev.BlockRevived():
            return t("ev.revive", lang, seq=seq, block=event.block_id, hash=short_hash(event.hash))
        case ev.BlockShared() if event.hash == -1:   # policy "sglang": a page found in the radix tree
            return t("ev.tree_hit", lang, seq=seq, block=event.block_id, ref=event.ref_count)
        case ev.BlockShared():
            return t("ev.share", lang, seq=seq, block=event.block_id, hash=short_hash(event.hash), ref=event.ref_count)
        case ev.HashRegistered():
            extra = t("ev.replace", lang, block=event.replaced_block_id) if event.replaced_block_id >= 0 else ""
            return t("ev.hash", lang, seq=seq, block=event.block_id, i=event.index, hash=short_hash(event.hash),
                     parent=short_hash(event.parent_hash), extra=extra)
        case ev.BlockReleased():
            extra = t("ev.freed", lang) if event.ref_count == 0 else ""
            return t("ev.release", lang, seq=seq, block=event.block_id, ref=event.ref_count, extra=extra)
        case ev.FreedToHead():
            return t("ev.freed_to_head", lang, seq=seq, blocks=", ".join(f"#{b}" for b in event.block_ids))
        case ev.BlockAppended():
            return t("ev.append_block", lang, seq=seq, block=event.block_id)
        case ev.Scheduled():
            items = ", ".join(f"{labels.get(s, f'#{s}')}×{n}" for s, n in zip(event.seq_ids, event.num_tokens))
            phase = t("phase.prefill" if event.is_prefill else "phase.decode", lang)
            return t("ev.schedule", lang, phase=phase, items=items or "-", n=sum(event.num_tokens))
        case ev.Preempted():
            return t("ev.preempt", lang, seq=seq)
        case ev.TokenSampled() if not event.kept:
            return t("ev.token_dropped", lang, seq=seq, token=_token(event, decode))
        case ev.TokenSampled():
            return t("ev.token", lang, seq=seq, token=_token(event, decode))
        case ev.Finished():
            return t("ev.finish", lang, seq=seq, reason=t(f"reason.{event.reason}", lang))
        case ev.KVWritten():
            slots = ", ".join(map(str, event.slots[:12])) + (" …" if len(event.slots) > 12 else "")
            return t("ev.kv_write", lang, n=len(event.slots), layers=event.num_layers, slots=slots)
        case ev.StepTimed():
            return t("ev.step_time", lang, ms=f"{event.seconds * 1000:.2f}", n=event.num_tokens)
    return _narrate_tree(event, seq, lang, decode)


def _ids(ids: tuple[int, ...], shown: int = 8) -> str:
    return "[" + " ".join(map(str, ids[:shown])) + (" …" if len(ids) > shown else "") + "]"


def _narrate_tree(event: ev.Event, seq: str, lang: str, decode: Decode | None) -> str:
    """The events of policy "sglang": its pages and its radix tree (recording/instrumented_radix.py)."""
    match event:
        case ev.PageFreed():
            return t("ev.page_freed", lang, block=event.block_id)
        case ev.PageReleased():
            extra = t("ev.page_joins", lang) if event.freed else t("ev.page_cached", lang) if event.ref_count == 0 else ""
            return t("ev.release", lang, seq=seq, block=event.block_id, ref=event.ref_count, extra=extra)
        case ev.PageDeduplicated():
            return t("ev.page_dedup", lang, seq=seq, i=event.index, own=event.own, tree=event.tree)
        case ev.NodeInserted():
            tokens = f"“{clip(visible(decode(event.token_ids)), 24)}”" if decode else _ids(event.token_ids)
            return t("ev.node_insert", lang, seq=seq, node=event.node, parent=event.parent, n=len(event.token_ids),
                     tokens=tokens, pages=", ".join(f"#{p}" for p in event.pages))
        case ev.NodeSplit():
            return t("ev.node_split", lang, node=event.node, new=event.new, n=event.length)
        case ev.NodeTouched():
            return t("ev.node_touch", lang, seq=seq, node=event.node, time=event.time)
        case ev.NodesHit():
            return t("ev.nodes_hit", lang, nodes=", ".join(map(str, event.nodes)))
        case ev.LockChanged():
            return t("ev.lock_inc" if event.delta > 0 else "ev.lock_dec", lang, seq=seq, node=event.node)
        case ev.LeafEvicted():
            return t("ev.leaf_evict", lang, seq=seq, node=event.node)
    raise ValueError(f"no narration for event kind {event.kind!r}")


def render_events(events: Iterable[ev.Event], labels: dict[int, str], *, step: int = 0, lang: str = "en",
                  decode: Decode | None = None, max_lines: int | None = None, layout: Layout = NOTEBOOK) -> str:
    """A line per event, the first `max_lines` (default: the layout's max_events), each cut to the
    layout's width (the whole line on hover)."""
    events = list(events)
    max_lines = layout.max_events if max_lines is None else max_lines
    title = t("events.title", lang, step=step, n=len(events))
    lines = [narrate(event, labels, lang, decode) for event in events[:max_lines]]
    if len(events) > max_lines:
        lines.append(t("events.more", lang, n=len(events) - max_lines))
    if not events:
        lines.append(t("events.none", lang))
    size, pitch, left = layout.text, layout.text + 4, layout.px(10)
    fits = int((layout.width - 2 * left) / (CHAR_WIDTH * size))
    parts = [text(left, layout.title + 4, clip(title, int(fits * size / layout.title)), layout.title, bold=True)]
    kinds = [event.kind for event in events[:max_lines]]
    for k, line in enumerate(lines):
        kind = f' data-kind="{kinds[k]}"' if k < len(kinds) else ""
        shown = clip(line, fits)
        hover = f"<title>{esc(line)}</title>" if shown != line else ""
        parts.append(f"<g{kind}>{hover}" + text(left, layout.title + 4 + pitch + 3 + k * pitch, shown, size) + "</g>")
    width = 2 * left + max([text_width(title, layout.title)] + [text_width(clip(line, fits), size) for line in lines])
    return svg_document(min(width, layout.width), layout.title + 4 + pitch + 3 + len(lines) * pitch + left,
                        "".join(parts), view="events", step=step, label=title)
