"""block_table -> slot mapping of one request: every token's logical block, physical block and slot.

slot = block_table[t // B] * B + t % B. Beside it: the token's row in this step's packed batch and
its RoPE position (= t), the three indices learners must not confuse.
"""
import re
from typing import Callable, Iterable

from blockviz.i18n import t
from blockviz.queries import step_block_table
from blockviz.slots import slot_of
from blockviz.states import classify_block
from blockviz.recording.events import Event
from blockviz.recording.snapshot import Snapshot
from blockviz.views.layout import NOTEBOOK, Layout
from blockviz.views.render_pool import default_decode
from blockviz.views.svg import CHAR_WIDTH, clip, esc, svg_document, text, text_width, visible
from blockviz.views.theme import STATE_STYLES

Decode = Callable[[tuple[int, ...]], str]

# lengths in the notebook's layout (a layout draws them Layout.px() long)
COL = 38       # width of one token column
ROW = 17
WINDOW_TOKENS = NOTEBOOK.window_tokens  # tokens shown at most (whole logical blocks, around this step's positions)
MAX_WIDTH = NOTEBOOK.width  # logical blocks wrap onto rows: the view fits the pane of a 900 px notebook column
MIN_COL = 34         # narrower token columns for large blocks, so a block of 16 fits a row
CELL_PAD = 10        # at least this much space between two columns' numbers (bold ones are wider)
TOKEN_CHARS = 5      # a token's text is cut to this many columns (the whole of it on hover)
SPLIT_LINES = 4      # a block wider than a row is split into lines: this many lines shown at most
NO_TEXT = re.compile(r"<\d+>")  # how a tokenizer writes a token id that has no text (char_tokenizer.py)
PHYSICAL_W, PHYSICAL_H = 64, 26


def packed_offset(snapshot: Snapshot, seq_id: int) -> int:
    """Row of the request's first computed token in this step's packed batch (requests in schedule order)."""
    offset = 0
    for other, (_, count) in snapshot.scheduled.items():
        if other == seq_id:
            return offset
        offset += count
    raise KeyError(seq_id)


def window_of(num_logical: int, B: int, start: int, col: int, room: float,
              window_tokens: int = WINDOW_TOKENS) -> tuple[int, int, int, int, int]:
    """What the view shows with token columns `col` wide: logical blocks first..last (exclusive), their
    offsets first..last (exclusive), in lines of `per_line` offsets. A block wider than a row is split
    into lines of equal parts; whole blocks while at most SPLIT_LINES lines show them, else the
    SPLIT_LINES lines of one block around this step's first position."""
    lines = -(-B // max(1, int(room // col)))
    per_line = -(-B // lines)
    if lines <= SPLIT_LINES:
        window = max(1, window_tokens // B if lines == 1 else SPLIT_LINES // lines)
        first_block = 0 if num_logical <= window else max(0, min(num_logical - window, start // B))
        return first_block, min(num_logical, first_block + window), 0, B, per_line
    block = min(num_logical - 1, start // B)
    shown = SPLIT_LINES * per_line
    first_offset = max(0, min(B - shown, (start % B) // per_line * per_line)) if start // B == block else 0
    return block, block + 1, first_offset, first_offset + shown, per_line


def render_mapping(snapshot: Snapshot, seq_id: int, events: Iterable[Event] = (), *, lang: str = "en",
                   decode: Decode | None = None, max_width: float | None = None, layout: Layout = NOTEBOOK) -> str:
    """The request's logical blocks side by side, wrapped onto rows no wider than `max_width` (default:
    the layout's width), each row with its physical blocks below it (in pool order: the table jumps
    around the pool); at most the layout's window_tokens tokens."""
    decode = decode or default_decode
    max_width = layout.width if max_width is None else max_width
    px, size, title_size = layout.px, layout.text, layout.title
    seq = snapshot.seqs[seq_id]
    B = snapshot.block_size
    table, released = step_block_table(snapshot, events, seq_id)
    start, count = snapshot.scheduled.get(seq_id, (0, 0))
    computed_end = start + count if released else seq.num_cached_tokens  # K/V written for positions below
    row0 = packed_offset(snapshot, seq_id) if count else 0

    num_logical = (seq.num_tokens + B - 1) // B
    row_keys = ["map.token", "map.position", "map.logical", "map.offset", "map.physical", "map.slot", "map.row"]
    row_names = [t(k, lang) for k in row_keys]
    left = px(10) + max(text_width(name, size) for name in row_names) + px(10)
    room = max_width - left - px(18)  # for the token columns of one row
    # columns wide enough for the widest number or token they show (six-digit slots in a large pool):
    # sized for the numbers first, then once more if a token shown is wider still
    numbers = max(seq.num_tokens - 1, max(table, default=0) * B + B - 1)
    col = max(px(MIN_COL), int(text_width(str(numbers), size) + px(CELL_PAD) + 0.999), min(px(COL), int(room // B)))
    while True:  # a wider column shows fewer tokens: this ends
        first_block, last_block, first_offset, last_offset, per_line = window_of(num_logical, B, start, col, room,
                                                                                     layout.window_tokens)
        widest = max((text_width(token_cell(visible(decode((seq.token_ids[p],)))), size)
                      for logical in range(first_block, last_block)
                      for p in range(logical * B + first_offset, min(seq.num_tokens, logical * B + last_offset))),
                     default=0)
        if widest + px(CELL_PAD) <= col:
            break
        col = int(widest + px(CELL_PAD) + 0.999)
    segments = [(logical, lo, min(lo + per_line, last_offset))
                for logical in range(first_block, last_block) for lo in range(first_offset, last_offset, per_line)]
    title = t("map.title", lang, label=seq.label, status=t(f"status.{seq.status}", lang), table=list(table), B=B)
    notes = []
    if released:
        notes.append(t("map.released", lang))
    if count:
        notes.append(t("map.computed", lang, first=start, last=start + count - 1, row=row0))
    if first_block > 0 or last_block < num_logical:
        notes.append(t("map.window", lang, first=first_block, last=last_block - 1, total=num_logical))
    if (first_offset, last_offset) != (0, B):
        notes.append(t("map.window_offsets", lang, first=first_block * B + first_offset,
                       last=first_block * B + last_offset - 1, logical=first_block, B=B))
    columns = int((max_width - px(20)) / (CHAR_WIDTH * title_size))
    parts = [f"<g><title>{esc(title)}</title>" + text(px(10), px(16), clip(title, columns), title_size, bold=True) + "</g>"]
    for k, note in enumerate(notes):
        parts.append(text(px(10), px(32 + k * 14), clip(note, int(columns * title_size / size)), size, cls="bv-muted"))
    top = px(32 + len(notes) * 14 + 8)
    table_h = px(20 + len(row_keys) * ROW + 4)
    band_h = table_h + px(46 + PHYSICAL_H + 18)  # a row of logical blocks, the arrows, its physical blocks
    rows: list[list[tuple[int, int, int]]] = [[]]
    for segment in segments:  # as many segments a row as fit
        used = sum((hi - lo) * col + px(8) for _, lo, hi in rows[-1])
        if rows[-1] and used + (segment[2] - segment[1]) * col + px(8) > max_width - left - px(10):
            rows.append([])
        rows[-1].append(segment)
    for r, row in enumerate(rows):
        parts += mapping_row(snapshot, seq, table, row, top + r * band_h, left, col, row_names, decode,
                             (start, count, computed_end, row0), lang, layout)
    bottom = top + len(rows) * band_h
    legend = [t("map.legend", lang)]
    if any(NO_TEXT.fullmatch(decode((seq.token_ids[p],))) for logical, lo, hi in segments
           for p in range(logical * B + lo, min(seq.num_tokens, logical * B + hi))):
        legend.append(t("map.legend.ids", lang))  # a line of its own: say what <618> is
    for k, line in enumerate(legend):
        parts.append(text(px(10), bottom + px(4 + k * 14), clip(line, int(columns * title_size / size)), size,
                          cls="bv-muted"))
    widest_row = max(sum((hi - lo) * col + px(8) for _, lo, hi in row) for row in rows)
    width = min(max_width, max(left + widest_row, text_width(title, title_size) + px(20),
                               *(text_width(line, size) + px(20) for line in legend + notes)))
    bottom += px(14) * (len(legend) - 1)
    return svg_document(width, bottom + px(14), "".join(parts), view="mapping", step=snapshot.step, label=title,
                        attrs=f' data-seq-id="{seq_id}"')


def token_cell(token: str) -> str:
    """A token's text cut to TOKEN_CHARS columns; a token id with no text (<618>) whole, so it reads as an id."""
    return token if NO_TEXT.fullmatch(token) else clip(token, TOKEN_CHARS)


def mapping_row(snapshot: Snapshot, seq, table: tuple[int, ...], segments: list[tuple[int, int, int]], top: float,
                left: float, col: float, row_names: list[str], decode: Decode, now_span: tuple[int, int, int, int],
                lang: str, layout: Layout = NOTEBOOK) -> list[str]:
    """One row of logical blocks (their tokens in columns, one line per index) above the physical
    blocks they map to, with an arrow from each logical block to its physical one. A segment is
    (logical block, first offset, end offset): a whole block, or a line of one too wide for a row."""
    B = snapshot.block_size
    start, count, computed_end, row0 = now_span
    px, size, row_h = layout.px, layout.text, layout.px(ROW)
    physical_w, physical_h = px(PHYSICAL_W), px(PHYSICAL_H)
    parts = [text(px(10), top + px(32) + r * row_h, name, size, cls="bv-muted") for r, name in enumerate(row_names)]
    table_h = px(20 + len(row_names) * ROW + 4)
    physical_y = top + table_h + px(46)
    centres = []  # (logical block, x centre of its column group), for the arrows
    x0 = left
    for logical, lo, hi in segments:
        has_block = logical < len(table)
        header = f"L{logical} → #{table[logical]}" if has_block else f"L{logical} → {t('map.none', lang)}"
        if (lo, hi) != (0, B):
            header += " · " + t("map.offsets", lang, first=lo, last=hi - 1)
        group_w = (hi - lo) * col
        parts.append(f'<rect x="{x0}" y="{top}" width="{group_w}" height="{table_h}" rx="3" fill="none" '
                     f'class="bv-line"/>')
        parts.append(text(x0 + group_w / 2, top + px(14), header, size, anchor="middle", bold=True))
        centres.append((logical, x0 + group_w / 2))
        for p in range(logical * B + lo, min(seq.num_tokens, logical * B + hi)):
            x = x0 + (p % B - lo) * col
            now = start <= p < start + count
            slot = slot_of(table, B, p) if has_block else None
            token = visible(decode((seq.token_ids[p],)))
            cells = [token_cell(token), str(p), str(p // B), str(p % B), str(table[logical]) if has_block else "—",
                     "—" if slot is None else str(slot), str(row0 + p - start) if now else "·"]
            label = t("map.token_label", lang, t=p, token=token, logical=p // B, offset=p % B,
                      physical=cells[4], slot=cells[5], row=cells[6])
            parts.append(f'<g data-t="{p}" data-slot="{-1 if slot is None else slot}" '
                         f'data-block="{table[logical] if has_block else -1}" '
                         f'data-row="{row0 + p - start if now else -1}" data-now="{int(now)}" aria-label="{esc(label)}">'
                         f'<title>{esc(label)}</title>')  # the whole token on hover: the column shows 5 characters
            if now:
                parts.append(f'<rect x="{x + 1}" y="{top + px(18)}" width="{col - 2}" height="{len(row_names) * row_h + px(4)}" '
                             f'rx="2" fill="none" class="bv-touch" stroke-width="2" stroke-dasharray="4 2"/>')
            for r, cell in enumerate(cells):
                written = p < computed_end
                cls = "bv-fg" if (r != 5 or written) else "bv-muted"  # slot reserved, K/V not written yet
                parts.append(text(x + col / 2, top + px(32) + r * row_h, cell, size, cls=cls, anchor="middle",
                                  bold=(r == 5 and now)))
            parts.append("</g>")
        x0 += group_w + px(8)
    shown = sorted({table[b] for b, _, _ in segments if b < len(table)})
    x_of = {}
    for k, block_id in enumerate(shown):
        x = left + k * (physical_w + px(8))
        style = STATE_STYLES[classify_block(snapshot, block_id)]
        x_of[block_id] = x + physical_w / 2
        parts.append(f'<g data-block-id="{block_id}">'
                     f'<rect x="{x}" y="{physical_y}" width="{physical_w}" height="{physical_h}" rx="3" '
                     f'fill="{style.fill}" class="bv-line"/>'
                     + text(x + px(6), physical_y + px(18), f"#{block_id}", layout.title, bold=True, fill=style.text)
                     + text(x + physical_w - px(6), physical_y + px(19), style.glyph, layout.glyph, anchor="end",
                            fill=style.text)
                     + "</g>")
    parts.append(text(px(10), physical_y + px(18), t("map.pool", lang), size, cls="bv-muted"))
    for logical, cx in centres:
        if logical < len(table):
            px = x_of[table[logical]]
            parts.append(f'<line x1="{cx}" y1="{top + table_h}" x2="{px}" y2="{physical_y - 6}" class="bv-line" '
                         f'stroke-width="1.2"/>')
            parts.append(f'<path d="M{px - 4} {physical_y - 7} L{px + 4} {physical_y - 7} L{px} {physical_y - 1} Z" '
                         f'class="bv-arrow"/>')
    return parts
