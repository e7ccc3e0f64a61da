"""block_table -> slot mapping of one request: every token's logical block, physical block and slot.

slot = block_table[t // B] * B + t % B. Beside it: the token's row in this step's packed batch and
its RoPE position (= t), the three indices learners must not confuse.
"""
from typing import Callable, Iterable

from blockviz.i18n import t as tr
from blockviz.states import classify_block
from blockviz.trace.events import BlockReleased, Event
from blockviz.trace.snapshot import Snapshot
from blockviz.views.render_pool import default_decode
from blockviz.views.svg import clip, esc, svg_document, text, text_width, visible
from blockviz.views.theme import STATE_STYLES

Decode = Callable[[tuple[int, ...]], str]

COL = 38       # width of one token column
ROW = 17
WINDOW_TOKENS = 128  # tokens shown at most (whole logical blocks, around this step's positions)


def step_block_table(snapshot: Snapshot, events: Iterable[Event], seq_id: int) -> tuple[tuple[int, ...], bool]:
    """(block_table used during this step, released at its end?). A request that finished or was
    preempted has an empty table afterwards; deallocate released it in reverse, so reverse back."""
    seq = snapshot.seqs[seq_id]
    if seq.block_table:
        return seq.block_table, False
    released = [e.block_id for e in events if isinstance(e, BlockReleased) and e.seq_id == seq_id]
    return tuple(reversed(released)), bool(released)


def packed_offset(snapshot: Snapshot, seq_id: int) -> int:
    """Row of the request's first computed token in this step's packed batch (requests in schedule order)."""
    offset = 0
    for other, (_, count) in snapshot.scheduled.items():
        if other == seq_id:
            return offset
        offset += count
    raise KeyError(seq_id)


def slot_of(block_table: tuple[int, ...], position: int, block_size: int) -> int:
    return block_table[position // block_size] * block_size + position % block_size


def render_mapping(snapshot: Snapshot, seq_id: int, events: Iterable[Event] = (), *, lang: str = "en",
                   decode: Decode | None = None) -> str:
    decode = decode or default_decode
    seq = snapshot.seqs[seq_id]
    B = snapshot.block_size
    table, released = step_block_table(snapshot, events, seq_id)
    start, count = snapshot.scheduled.get(seq_id, (0, 0))
    computed_end = start + count if released else seq.num_cached_tokens  # K/V written for positions below
    row0 = packed_offset(snapshot, seq_id) if count else 0

    num_logical = (seq.num_tokens + B - 1) // B
    window = max(1, WINDOW_TOKENS // B)
    first_block = 0 if num_logical <= window else max(0, min(num_logical - window, start // B))
    last_block = min(num_logical, first_block + window)
    positions = range(first_block * B, min(seq.num_tokens, last_block * B))

    row_keys = ["map.token", "map.position", "map.logical", "map.offset", "map.physical", "map.slot", "map.row"]
    row_names = [tr(k, lang) for k in row_keys]
    left = 10 + max(text_width(name, 11) for name in row_names) + 10
    title = tr("map.title", lang, label=seq.label, status=tr(f"status.{seq.status}", lang), table=list(table), B=B)
    notes = []
    if released:
        notes.append(tr("map.released", lang))
    if count:
        notes.append(tr("map.computed", lang, first=start, last=start + count - 1, row=row0))
    if first_block > 0 or last_block < num_logical:
        notes.append(tr("map.window", lang, first=first_block, last=last_block - 1, total=num_logical))
    parts = [text(10, 16, title, 12, bold=True)]
    for k, note in enumerate(notes):
        parts.append(text(10, 32 + k * 14, note, 11, cls="bv-muted"))
    top = 32 + len(notes) * 14 + 8
    for r, name in enumerate(row_names):
        parts.append(text(10, top + 20 + r * ROW + 12, name, 11, cls="bv-muted"))

    physical_y = top + 20 + len(row_keys) * ROW + 46
    groups = {}  # logical block -> x centre, for the arrows
    for logical in range(first_block, last_block):
        x0 = left + (logical - first_block) * (B * COL + 8)
        group_positions = [p for p in positions if p // B == logical]
        width = B * COL
        has_block = logical < len(table)
        header = f"L{logical} → #{table[logical]}" if has_block else f"L{logical} → {tr('map.none', lang)}"
        parts.append(f'<rect x="{x0}" y="{top}" width="{width}" height="{20 + len(row_keys) * ROW + 4}" rx="3" '
                     f'fill="none" class="bv-line"/>')
        parts.append(text(x0 + width / 2, top + 14, header, 11, anchor="middle", bold=True))
        groups[logical] = x0 + width / 2
        for p in group_positions:
            x = x0 + (p % B) * COL
            now = start <= p < start + count
            slot = slot_of(table, p, B) if has_block else None
            written = p < computed_end
            cells = [clip(visible(decode((seq.token_ids[p],))), 5), str(p), str(p // B), str(p % B),
                     str(table[logical]) if has_block else "—", "—" if slot is None else str(slot),
                     str(row0 + p - start) if now else "·"]
            label = tr("map.token_label", lang, t=p, token=cells[0], logical=p // B, offset=p % B,
                       physical=cells[4], slot=cells[5], row=cells[6])
            parts.append(f'<g data-t="{p}" data-slot="{-1 if slot is None else slot}" '
                         f'data-block="{table[logical] if has_block else -1}" '
                         f'data-row="{row0 + p - start if now else -1}" data-now="{int(now)}" aria-label="{esc(label)}">')
            if now:
                parts.append(f'<rect x="{x + 1}" y="{top + 18}" width="{COL - 2}" height="{len(row_keys) * ROW + 4}" '
                             f'rx="2" fill="none" class="bv-touch" stroke-width="2" stroke-dasharray="4 2"/>')
            for r, cell in enumerate(cells):
                cls = "bv-fg" if (r != 5 or written) else "bv-muted"  # slot reserved, K/V not written yet
                parts.append(text(x + COL / 2, top + 20 + r * ROW + 12, cell, 11, cls=cls, anchor="middle",
                                  bold=(r == 5 and now)))
            parts.append("</g>")

    # physical blocks, in pool order: the table jumps around the pool
    shown = sorted({table[b] for b in range(first_block, min(last_block, len(table)))})
    x_of = {}
    for k, block_id in enumerate(shown):
        x = left + k * 58
        style = STATE_STYLES[classify_block(snapshot, block_id)]
        x_of[block_id] = x + 25
        parts.append(f'<g data-block-id="{block_id}">'
                     f'<rect x="{x}" y="{physical_y}" width="50" height="24" rx="3" fill="{style.fill}" class="bv-line"/>'
                     + text(x + 25, physical_y + 16, f"#{block_id} {style.glyph}", 11, anchor="middle",
                            fill=style.text) + "</g>")
    parts.append(text(10, physical_y + 16, tr("map.pool", lang), 11, cls="bv-muted"))
    link_top = top + 20 + len(row_keys) * ROW + 4
    for logical, cx in groups.items():
        if logical < len(table):
            px = x_of[table[logical]]
            parts.append(f'<line x1="{cx}" y1="{link_top}" x2="{px}" y2="{physical_y - 6}" class="bv-line" '
                         f'stroke-width="1.2"/>')
            parts.append(f'<path d="M{px - 4} {physical_y - 7} L{px + 4} {physical_y - 7} L{px} {physical_y - 1} Z" '
                         f'class="bv-arrow"/>')

    legend = tr("map.legend", lang)
    parts.append(text(10, physical_y + 46, legend, 11, cls="bv-muted"))
    width = max(left + len(groups) * (B * COL + 8), left + len(shown) * 58, text_width(title, 12) + 20,
                text_width(legend, 11) + 20, *(text_width(n, 11) + 20 for n in notes))
    return svg_document(width, physical_y + 56, "".join(parts), view="mapping", step=snapshot.step, label=title,
                        attrs=f' data-seq-id="{seq_id}"')
