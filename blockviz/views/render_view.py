"""Any view of a timeline at any step, by name: what widgets, exports and the HTML player share."""
from blockviz.i18n import t
from blockviz.queries import labels_of
from blockviz.recording.events import KVWritten
from blockviz.views.render_chain import render_chain
from blockviz.views.render_events import render_events
from blockviz.views.render_kv import MAX_BLOCKS, render_kv_rows
from blockviz.views.render_mapping import render_mapping
from blockviz.views.registry import SVG_VIEWS
from blockviz.views.render_pool import render_pool
from blockviz.views.svg import svg_document, text, text_width
from blockviz.views.recording_index import KVIndex, RecordingIndex, tokens_when_probed


def default_seq(timeline, step: int) -> int | None:
    """The request a per-request view shows when none is chosen: the first one scheduled at this step,
    else the last one added."""
    snapshot = timeline.snapshot(step)
    if snapshot.scheduled:
        return next(iter(snapshot.scheduled))
    return max(snapshot.seqs, default=None)  # seq ids count up as requests arrive


def has_kv(timeline) -> bool:
    """Whether the timeline records K/V values: a live LLMEngine that keeps some, or a trace with some."""
    if getattr(timeline, "kv_layer", None) is not None and getattr(timeline, "kv_head", None) is not None:
        return True
    step = max(1, timeline.first_step)  # the first step that ran and is still kept
    return len(timeline.frames) > step and "kv" in (timeline.frames[step].payload or {})


def kv_svg(timeline, step: int, index: KVIndex, *, lang: str = "en", kv: str = "k") -> str:
    """The recorded K (kv="k") or V (kv="v") pool of one layer and head at `step`, this step's
    writes outlined; rows: the blocks in use or written."""
    if kv not in ("k", "v"):
        raise ValueError(f'kv must be "k" or "v", got {kv!r}')
    written = [s for e in timeline.events(step) if isinstance(e, KVWritten) for s in e.slots]
    snapshot = timeline.snapshot(step)
    rows = sorted({*snapshot.used_block_ids, *(s // snapshot.block_size for s in written)})[:MAX_BLOCKS]
    values = index.values(timeline.frames, step, kv, rows)  # only the rows shown: a GPU pool is large
    name = kv.upper()
    if values is None:
        return message_svg(t("kv.empty", lang, kv=name), "kv", step)
    title = t("kv.which", lang, kv=name, **index.which)
    return render_kv_rows(values, rows, snapshot.num_blocks, written, step=step, title=title, lang=lang)


def message_svg(message: str, view: str, step: int) -> str:
    return svg_document(20 + text_width(message, 11), 30, text(10, 19, message, 11, cls="bv-muted"),
                        view=view, step=step, label=message)


def render_view(timeline, view: str, step: int | None = None, *, lang: str = "en", seq_id: int | None = None,
                index: RecordingIndex | None = None, kv_index: KVIndex | None = None, selected: int | None = None,
                kv: str = "k", columns: int | None = None) -> str:
    """SVG of `view` (one of SVG_VIEWS) at `step` (default: the cursor). Pass indexes kept by the
    caller to avoid rereading the trace (the chain view needs a RecordingIndex, the KV view a KVIndex).
    The KV view shows K values, or V with kv="v"; the pool, with `columns`, that many cells a row."""
    step = timeline.cursor if step is None else step
    snapshot, events = timeline.snapshot(step), timeline.events(step)
    decode = timeline.decode
    if view == "pool":
        return render_pool(snapshot, events, lang=lang, decode=decode, selected=selected, columns=columns)
    if view == "events":
        return render_events(events, labels_of(timeline), step=step, lang=lang, decode=decode)
    if view == "kv":
        if not has_kv(timeline):
            return message_svg(t("kv.none", lang), view, step)
        kv_index = kv_index or KVIndex(snapshot.num_blocks, snapshot.block_size)
        return kv_svg(timeline, step, kv_index, lang=lang, kv=kv)
    if view not in ("mapping", "chain"):
        raise ValueError(f"unknown view {view!r}; choose one of {SVG_VIEWS}")
    seq_id = default_seq(timeline, step) if seq_id is None else seq_id
    if seq_id is None or seq_id not in snapshot.seqs:
        return message_svg(t("view.no_request", lang), view, step)
    if view == "mapping":
        return render_mapping(snapshot, seq_id, events, lang=lang, decode=decode)
    if index is None:
        index = RecordingIndex()
    index.update(timeline.frames)
    found = index.latest(seq_id, step)
    if found is None:
        return render_chain(snapshot, seq_id, (), lang=lang, decode=decode)
    return render_chain(snapshot, seq_id, found.probes, lang=lang, decode=decode, probe_step=found.step,
                        admitted=found.admitted, token_ids=tokens_when_probed(timeline.frames, seq_id, found.step))
