"""block_table -> slot mapping of one request: every token's logical block, physical block and slot.

slot = block_table[t // B] * B + t % B. Beside it: the token's row in this step's packed batch and
its RoPE position (= t), the three indices learners must not confuse.
"""
from typing import Callable, Iterable

from blockviz.i18n import t
from blockviz.queries import step_block_table
from blockviz.slots import slot_of
from blockviz.states import classify_block
from blockviz.trace.events import Event
from blockviz.trace.snapshot import Snapshot
from blockviz.views.render_pool import GLYPH, default_decode
from blockviz.views.svg import CHAR_WIDTH, clip, esc, svg_document, text, text_width, visible
from blockviz.views.theme import STATE_STYLES

Decode = Callable[[tuple[int, ...]], str]

COL = 38       # width of one token column
ROW = 17
WINDOW_TOKENS = 64   # tokens shown at most (whole logical blocks, around this step's positions)
MAX_WIDTH = 800      # logical blocks wrap onto rows: the view fits the pane of a 900 px notebook column
MIN_COL = 34         # narrower token columns for large blocks, so a block of 16 fits a row
PHYSICAL_W, PHYSICAL_H = 64, 26


def packed_offset(snapshot: Snapshot, seq_id: int) -> int:
    """Row of the request's first computed token in this step's packed batch (requests in schedule order)."""
    offset = 0
    for other, (_, count) in snapshot.scheduled.items():
        if other == seq_id:
            return offset
        offset += count
    raise KeyError(seq_id)


def render_mapping(snapshot: Snapshot, seq_id: int, events: Iterable[Event] = (), *, lang: str = "en",
                   decode: Decode | None = None, max_width: float = MAX_WIDTH) -> str:
    """The request's logical blocks side by side, wrapped onto rows no wider than `max_width`, each
    row with its physical blocks below it (in pool order: the table jumps around the pool)."""
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

    row_keys = ["map.token", "map.position", "map.logical", "map.offset", "map.physical", "map.slot", "map.row"]
    row_names = [t(k, lang) for k in row_keys]
    left = 10 + max(text_width(name, 11) for name in row_names) + 10
    col = max(MIN_COL, min(COL, int((max_width - left - 18) // B)))  # a whole block fits a row
    group_w = B * col + 8
    per_row = max(1, int((max_width - left - 10) // group_w))
    title = t("map.title", lang, label=seq.label, status=t(f"status.{seq.status}", lang), table=list(table), B=B)
    notes = []
    if released:
        notes.append(t("map.released", lang))
    if count:
        notes.append(t("map.computed", lang, first=start, last=start + count - 1, row=row0))
    if first_block > 0 or last_block < num_logical:
        notes.append(t("map.window", lang, first=first_block, last=last_block - 1, total=num_logical))
    columns = int((max_width - 20) / (CHAR_WIDTH * 12))
    parts = [f"<g><title>{esc(title)}</title>" + text(10, 16, clip(title, columns), 12, bold=True) + "</g>"]
    for k, note in enumerate(notes):
        parts.append(text(10, 32 + k * 14, clip(note, int(columns * 12 / 11)), 11, cls="bv-muted"))
    top = 32 + len(notes) * 14 + 8
    table_h = 20 + len(row_keys) * ROW + 4
    band_h = table_h + 46 + PHYSICAL_H + 18  # a row of logical blocks, the arrows, its physical blocks
    rows = [range(b, min(b + per_row, last_block)) for b in range(first_block, last_block, per_row)]
    for r, logicals in enumerate(rows):
        parts += mapping_row(snapshot, seq, table, logicals, top + r * band_h, left, col, row_names, decode,
                             (start, count, computed_end, row0), lang)
    bottom = top + len(rows) * band_h
    legend = t("map.legend", lang)
    parts.append(text(10, bottom + 4, clip(legend, int(columns * 12 / 11)), 11, cls="bv-muted"))
    width = min(max_width, max(left + min(per_row, last_block - first_block) * group_w, text_width(title, 12) + 20,
                               text_width(legend, 11) + 20, *(text_width(n, 11) + 20 for n in notes)))
    return svg_document(width, bottom + 14, "".join(parts), view="mapping", step=snapshot.step, label=title,
                        attrs=f' data-seq-id="{seq_id}"')


def mapping_row(snapshot: Snapshot, seq, table: tuple[int, ...], logicals: range, top: float, left: float, col: float,
                row_names: list[str], decode: Decode, now_span: tuple[int, int, int, int], lang: str) -> list[str]:
    """One row of logical blocks (their tokens in columns, one line per index) above the physical
    blocks they map to, with an arrow from each logical block to its physical one."""
    B = snapshot.block_size
    start, count, computed_end, row0 = now_span
    parts = [text(10, top + 20 + r * ROW + 12, name, 11, cls="bv-muted") for r, name in enumerate(row_names)]
    table_h = 20 + len(row_names) * ROW + 4
    physical_y = top + table_h + 46
    centres = {}  # logical block -> x centre of its column group, for the arrows
    for k, logical in enumerate(logicals):
        x0 = left + k * (B * col + 8)
        has_block = logical < len(table)
        header = f"L{logical} → #{table[logical]}" if has_block else f"L{logical} → {t('map.none', lang)}"
        parts.append(f'<rect x="{x0}" y="{top}" width="{B * col}" height="{table_h}" rx="3" fill="none" '
                     f'class="bv-line"/>')
        parts.append(text(x0 + B * col / 2, top + 14, header, 11, anchor="middle", bold=True))
        centres[logical] = x0 + B * col / 2
        for p in range(logical * B, min(seq.num_tokens, (logical + 1) * B)):
            x = x0 + (p % B) * col
            now = start <= p < start + count
            slot = slot_of(table, B, p) if has_block else None
            token = visible(decode((seq.token_ids[p],)))
            cells = [clip(token, 5), str(p), str(p // B), str(p % B), str(table[logical]) if has_block else "—",
                     "—" if slot is None else str(slot), str(row0 + p - start) if now else "·"]
            label = t("map.token_label", lang, t=p, token=token, logical=p // B, offset=p % B,
                      physical=cells[4], slot=cells[5], row=cells[6])
            parts.append(f'<g data-t="{p}" data-slot="{-1 if slot is None else slot}" '
                         f'data-block="{table[logical] if has_block else -1}" '
                         f'data-row="{row0 + p - start if now else -1}" data-now="{int(now)}" aria-label="{esc(label)}">'
                         f'<title>{esc(label)}</title>')  # the whole token on hover: the column shows 5 characters
            if now:
                parts.append(f'<rect x="{x + 1}" y="{top + 18}" width="{col - 2}" height="{len(row_names) * ROW + 4}" '
                             f'rx="2" fill="none" class="bv-touch" stroke-width="2" stroke-dasharray="4 2"/>')
            for r, cell in enumerate(cells):
                written = p < computed_end
                cls = "bv-fg" if (r != 5 or written) else "bv-muted"  # slot reserved, K/V not written yet
                parts.append(text(x + col / 2, top + 20 + r * ROW + 12, cell, 11, cls=cls, anchor="middle",
                                  bold=(r == 5 and now)))
            parts.append("</g>")
    shown = sorted({table[b] for b in logicals if b < len(table)})
    x_of = {}
    for k, block_id in enumerate(shown):
        x = left + k * (PHYSICAL_W + 8)
        style = STATE_STYLES[classify_block(snapshot, block_id)]
        x_of[block_id] = x + PHYSICAL_W / 2
        parts.append(f'<g data-block-id="{block_id}">'
                     f'<rect x="{x}" y="{physical_y}" width="{PHYSICAL_W}" height="{PHYSICAL_H}" rx="3" '
                     f'fill="{style.fill}" class="bv-line"/>'
                     + text(x + 6, physical_y + 18, f"#{block_id}", 12, bold=True, fill=style.text)
                     + text(x + PHYSICAL_W - 6, physical_y + 19, style.glyph, GLYPH, anchor="end", fill=style.text)
                     + "</g>")
    parts.append(text(10, physical_y + 18, t("map.pool", lang), 11, cls="bv-muted"))
    for logical, cx in centres.items():
        if logical < len(table):
            px = x_of[table[logical]]
            parts.append(f'<line x1="{cx}" y1="{top + table_h}" x2="{px}" y2="{physical_y - 6}" class="bv-line" '
                         f'stroke-width="1.2"/>')
            parts.append(f'<path d="M{px - 4} {physical_y - 7} L{px + 4} {physical_y - 7} L{px} {physical_y - 1} Z" '
                         f'class="bv-arrow"/>')
    return parts
