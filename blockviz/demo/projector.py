"""The class page's pictures, legible from the back of a room at 1920×1080: a pool of big cells
(every text >= 18 px, the whole label on hover) and the side panels beside it (this step's events,
the hash chain and the block mapping of the request admitted last) as HTML of the same size.

The pool is a PoolPicture like the views' (blockviz/views/render_pool.py), so the page follows it
with the same patches (blockviz/views/pool_patch.py); only the cells are laid out for distance:
fewer, larger lines. A pool too large for legible cells is the views' own picture, scaled to fit.
"""
from math import ceil

from blockviz.demo.hits import AdmissionHit
from blockviz.i18n import t
from blockviz.markup import esc
from blockviz.states import BlockState, classify_block
from blockviz.text import short_hash
from blockviz.recording.snapshot import Snapshot
from blockviz.views.render_events import narrate
from blockviz.views.render_pool import (Cell, PoolPicture, default_decode, filling_tokens, phase_name, pool_picture,
                                        queue_places, touched_blocks)
from blockviz.views.svg import background, clip, svg_root, text, visible
from blockviz.views.theme import OUTCOME_STYLES, STATE_STYLES

CELL_W, CELL_H, GAP, PAD = 168, 110, 6, 8
HEAD_H, LEGEND_ROW = 40, 30
FONT = 18                  # the smallest text in a cell
MAX_BLOCKS = 96            # above: the views' compact picture, scaled to the screen
POOL_AREA = (1300, 830)    # px of a 1920×1080 screen left for the pool beside the panels
MAX_EVENTS = 40


def columns_for(num_blocks: int, area: tuple[int, int] = POOL_AREA) -> int:
    """The number of columns that shows the pool largest in `area`."""
    width, height = area

    def scale(ncols):
        rows = ceil(num_blocks / ncols)
        legend = 2 * LEGEND_ROW
        return min(width / (PAD * 2 + ncols * (CELL_W + GAP)), height / (HEAD_H + rows * (CELL_H + GAP) + legend))
    return max(range(1, min(num_blocks, 16) + 1), key=scale)


def projector_pool(snapshot: Snapshot, events=(), *, lang: str = "en", decode=None) -> PoolPicture:
    if snapshot.num_blocks > MAX_BLOCKS:
        return pool_picture(snapshot, events, lang=lang, decode=decode)
    decode = decode or default_decode
    ncols = columns_for(snapshot.num_blocks)
    touched = touched_blocks(events)
    places = queue_places(snapshot)
    filling = filling_tokens(snapshot)
    counts = dict.fromkeys(BlockState, 0)
    cells = []
    for i, block in enumerate(snapshot.blocks):
        state = classify_block(snapshot, i)
        counts[state] += 1
        style, ink = STATE_STYLES[state], STATE_STYLES[state].text
        x = PAD + (i % ncols) * (CELL_W + GAP)
        y = HEAD_H + (i // ncols) * (CELL_H + GAP)
        pos = int(places[i]) if places[i] >= 0 else None
        name = t(f"state.{state.value}", lang)
        content = visible(decode(block.token_ids or filling.get(i, ()))) if (block.token_ids or i in filling) else ""
        label = t("class.cell", lang, block=i, state=name, ref=block.ref_count, hash=short_hash(block.hash),
                  tokens=content, queue="-" if pos is None else pos)
        attrs = {"data-block-id": str(i), "data-state": state.value, "data-ref": str(block.ref_count),
                 "data-queue": str(-1 if pos is None else pos), "aria-label": label}
        corner = style.glyph if pos is None else f"q{pos} {style.glyph}"
        body = (f'<rect x="{x}" y="{y}" width="{CELL_W}" height="{CELL_H}" rx="4" fill="{style.fill}" '
                f'class="bv-line" stroke-width="1"/><title>{esc(label)}</title>'
                + text(x + 8, y + 24, f"#{i}", 20, bold=True, fill=ink)
                + text(x + CELL_W - 8, y + 24, corner, 20, anchor="end", bold=pos == 0, fill=ink)
                + text(x + 8, y + 49, clip(name, 14), FONT, fill=ink)
                + text(x + 8, y + 74, clip(content, 14), FONT, fill=ink)
                + text(x + 8, y + 99, f'{t("pool.ref", lang)} {block.ref_count} · {short_hash(block.hash, 4)}',
                       FONT, fill=ink))
        if pos == 0:  # the block the next allocation pops, as in the views
            body += f'<path d="M{x} {y} L{x + 16} {y} L{x} {y + 16} Z" class="bv-fg"/>'
        if i in touched:
            body += (f'<rect x="{x - 2}" y="{y - 2}" width="{CELL_W + 4}" height="{CELL_H + 4}" rx="5" '
                     f'fill="none" class="bv-touch" stroke-width="4" stroke-dasharray="8 4"/>')
        cells.append(Cell(i, attrs, body))
    rows = ceil(snapshot.num_blocks / ncols)
    width = PAD * 2 + ncols * (CELL_W + GAP) - GAP
    bottom = HEAD_H + rows * (CELL_H + GAP)
    legend = []
    per_row = 3
    for k, state in enumerate(BlockState):
        style = STATE_STYLES[state]
        x = PAD + (k % per_row) * (width - 2 * PAD) / per_row
        y = bottom + (k // per_row) * LEGEND_ROW
        legend.append(f'<rect x="{x:g}" y="{y + 4}" width="30" height="22" rx="3" fill="{style.fill}" class="bv-line"/>'
                      + text(x + 15, y + 21, style.glyph, FONT, anchor="middle", fill=style.text)
                      + text(x + 38, y + 21, f'{t(f"state.{state.value}", lang)} {counts[state]}', FONT))
    height = bottom + 2 * LEGEND_ROW + PAD
    header = t("pool.header", lang, step=snapshot.step, phase=phase_name(snapshot, lang), n=snapshot.num_blocks,
               free=len(snapshot.free_block_ids), B=snapshot.block_size)
    root = svg_root(width, height, view="pool", step=snapshot.step, label=header)
    root["data-num-blocks"] = str(snapshot.num_blocks)
    head = background(width, height) + text(PAD, 28, clip(header, int(width / (0.6 * 20))), 20, bold=True)
    return PoolPicture(root, head, tuple(cells), "".join(legend))


def events_html(events, labels: dict[int, str], lang: str, decode=None) -> str:
    lines = [narrate(event, labels, lang, decode) for event in events if event.kind not in ("kv_write", "step_time")]
    items = "".join(f"<li>{esc(line)}</li>" for line in lines[:MAX_EVENTS])
    more = f'<li class="bv-more">{esc(t("class.more_events", lang, n=len(lines) - MAX_EVENTS))}</li>' \
        if len(lines) > MAX_EVENTS else ""
    return f'<ol class="bv-events">{items or "<li>-</li>"}{more}</ol>'


def chain_html(label: str, hit: AdmissionHit, lang: str) -> str:
    """The hash chain can_allocate walked when `label` was admitted: one line per logical block."""
    items = []
    for index, outcome, h, block_id in hit.probes:
        style = OUTCOME_STYLES[outcome]
        where = f" → #{block_id}" if block_id >= 0 else ""
        items.append(f'<li data-outcome="{outcome}"><span class="bv-swatch" style="background:{style.fill};'
                     f'color:{style.text}">{style.glyph}</span> h{index} {esc(short_hash(h))} '
                     f'{esc(t(f"outcome.{outcome}", lang))}{esc(where)}</li>')
    title = t("class.chain", lang, label=label, step=hit.step)
    return f'<h4>{esc(title)}</h4><ol class="bv-chain">{"".join(items)}</ol>'


def mapping_html(snapshot: Snapshot, seq_id: int, lang: str, decode=None) -> str:
    """Logical block -> physical block and its slots, for one request at this step."""
    decode = decode or default_decode
    seq = snapshot.seqs[seq_id]
    B = snapshot.block_size
    rows = []
    for i, block_id in enumerate(seq.block_table):
        state = classify_block(snapshot, block_id)
        style = STATE_STYLES[state]
        content = visible(decode(seq.token_ids[i * B:(i + 1) * B]))
        rows.append(f'<tr data-block-id="{block_id}"><td>{i}</td><td><span class="bv-swatch" style="background:'
                    f'{style.fill};color:{style.text}">{style.glyph}</span> #{block_id}</td>'
                    f'<td>{block_id * B}–{block_id * B + B - 1}</td>'
                    f'<td class="bv-clip" title="{esc(content)}">{esc(content)}</td></tr>')
    head = "".join(f"<th>{esc(t(k, lang))}</th>" for k in ("class.logical", "class.physical", "class.slots",
                                                             "class.tokens"))
    title = t("class.mapping", lang, label=seq.label)
    if not rows:
        return f"<h4>{esc(title)}</h4><p>{esc(t('class.no_blocks', lang))}</p>"
    return f'<h4>{esc(title)}</h4><table class="bv-mapping"><tr>{head}</tr>{"".join(rows)}</table>'
