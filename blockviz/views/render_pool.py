"""The block pool: every physical block with its lifecycle state, as SVG (and one block in detail, as HTML)."""
from dataclasses import dataclass
from typing import Callable, Iterable, NamedTuple

from blockviz.i18n import t
from blockviz.states import BlockState, classify, classify_block
from blockviz.trace.events import CacheProbe, Event, HashRegistered
from blockviz.trace.snapshot import Snapshot
from blockviz.views.format import full_hash, short_hash
from blockviz.views.svg import attrs_markup, background, clip, esc, svg_root, text, text_width, visible
from blockviz.views.theme import STATE_STYLES, theme_css

Decode = Callable[[tuple[int, ...]], str]

COMPACT_ABOVE = 256          # more blocks than this: small cells with the glyph only
FULL_CELL = (100, 84, 8)     # width, height, columns
COMPACT_CELL = (22, 22, 32)  # 64 columns above 1024 blocks
GAP = 4
PAD = 8


def default_decode(token_ids) -> str:
    return " ".join(map(str, token_ids))


def touched_blocks(events: Iterable[Event]) -> set[int]:
    """Blocks whose state this step's events changed (a probe only reads, so it touches nothing)."""
    touched = set()
    for event in events:
        if isinstance(event, CacheProbe):
            continue
        block_id = getattr(event, "block_id", -1)
        if block_id >= 0:
            touched.add(block_id)
        if isinstance(event, HashRegistered) and event.replaced_block_id >= 0:
            touched.add(event.replaced_block_id)  # its map entry was taken: it may turn stale
    return touched


def filling_tokens(snapshot: Snapshot) -> dict[int, tuple[int, ...]]:
    """Tokens a request keeps in each owned, unhashed block. Block.token_ids is only set when
    hash_blocks registers a full block, so a filling block's content lives in its request."""
    tokens = {}
    B = snapshot.block_size
    for seq in snapshot.seqs.values():
        for i, block_id in enumerate(seq.block_table):
            if snapshot.blocks[block_id].hash == -1:
                tokens[block_id] = seq.token_ids[i * B:(i + 1) * B]
    return tokens


def phase_name(snapshot: Snapshot, lang: str) -> str:
    return t({None: "phase.start", True: "phase.prefill", False: "phase.decode"}[snapshot.is_prefill], lang)


class Cell(NamedTuple):  # a tuple, not a dataclass: a pool makes thousands per step
    attrs: dict[str, str]  # of the block's <g>, unescaped: what a page sets with setAttribute
    body: str              # the markup inside it


@dataclass(frozen=True)
class PoolPicture:
    """The pool in the parts a page can update one at a time: the <svg> element's attributes, the
    header, one cell per block (index = block id) and the legend. svg() is the whole document."""
    root: dict[str, str]
    head: str
    cells: tuple[Cell, ...]
    legend: str

    def svg(self) -> str:
        cells = "".join([f"<g {attrs_markup(cell.attrs)}>{cell.body}</g>" for cell in self.cells])
        return (f'<svg {attrs_markup(self.root)}><style>{theme_css()}</style><g data-part="head">{self.head}</g>'
                f'<g data-part="cells">{cells}</g><g data-part="legend">{self.legend}</g></svg>')


def render_pool(snapshot: Snapshot, events: Iterable[Event] = (), *, lang: str = "en", decode: Decode | None = None,
                selected: int | None = None, compact: bool | None = None, legend: bool = True) -> str:
    return pool_picture(snapshot, events, lang=lang, decode=decode, selected=selected, compact=compact,
                        legend=legend).svg()


def pool_picture(snapshot: Snapshot, events: Iterable[Event] = (), *, lang: str = "en", decode: Decode | None = None,
                 selected: int | None = None, compact: bool | None = None, legend: bool = True) -> PoolPicture:
    decode = decode or default_decode
    compact = snapshot.num_blocks > COMPACT_ABOVE if compact is None else compact
    cell_w, cell_h, ncols = COMPACT_CELL if compact else FULL_CELL
    if snapshot.num_blocks > 1024:
        ncols *= 2
    ncols = max(1, min(ncols, snapshot.num_blocks))
    states = classify(snapshot)
    touched = touched_blocks(events)
    queue = {block_id: i for i, block_id in enumerate(snapshot.free_block_ids)}
    filling = {} if compact else filling_tokens(snapshot)
    names = {state: t(f"state.{state.value}", lang) for state in BlockState}
    words = {"block": t("pool.block", lang), "ref": t("pool.ref", lang), "hash": t("pool.hash", lang),
             "tokens": t("pool.tokens", lang), "queue": t("pool.queue", lang), "next": t("pool.next", lang),
             "touched": t("pool.touched", lang)}

    header = t("pool.header", lang, step=snapshot.step, phase=phase_name(snapshot, lang), n=snapshot.num_blocks,
               free=len(snapshot.free_block_ids), B=snapshot.block_size)
    top = PAD + 22
    cells = []
    for block, state in zip(snapshot.blocks, states):
        i = block.block_id
        x = PAD + (i % ncols) * (cell_w + GAP)
        y = top + (i // ncols) * (cell_h + GAP)
        style = STATE_STYLES[state]
        pos = queue.get(i)
        # compact pools are large: no token text (the detail shows it), no tooltip
        content = ""
        if not compact:
            token_ids = block.token_ids or filling.get(i, ())
            content = visible(decode(token_ids)) if token_ids else ""
        label = f'{words["block"]} {i}: {names[state]}, {words["ref"]} {block.ref_count}, ' \
                f'{words["hash"]} {short_hash(block.hash)}'
        if not compact:
            label += f', {words["tokens"]} “{content}”'
        if pos is not None:
            label += f', {words["queue"]} {pos}' + (f' ({words["next"]})' if pos == 0 else "")
        if i in touched:
            label += f', {words["touched"]}'
        attrs = {"data-block-id": str(i), "data-state": state.value, "data-ref": str(block.ref_count),
                 "data-queue": str(-1 if pos is None else pos), "aria-label": label}
        body = (f'<rect x="{x}" y="{y}" width="{cell_w}" height="{cell_h}" rx="3" fill="{style.fill}" '
                f'class="bv-line" stroke-width="1"/>')
        if compact:  # one string per block: a compact pool has thousands
            body += (f'<text x="{x + cell_w / 2:g}" y="{y + cell_h / 2 + 5:g}" font-size="13" '
                     f'text-anchor="middle" fill="{style.text}">{style.glyph}</text>')
        else:
            ink = style.text
            queue_text = "" if pos is None else f"q{pos}" + (f' ▶ {words["next"]}' if pos == 0 else "")
            body += "".join([
                f"<title>{esc(label)}</title>",
                text(x + 5, y + 14, f"#{i}", 12, bold=True, fill=ink),
                text(x + cell_w - 5, y + 15, style.glyph, 14, anchor="end", fill=ink),
                text(x + 5, y + 29, names[state], 10, fill=ink),
                text(x + 5, y + 46, clip(content, 15), 11, fill=ink),
                text(x + 5, y + 62, f'{words["ref"]} {block.ref_count} · {short_hash(block.hash)}', 10, fill=ink),
                text(x + 5, y + 77, queue_text, 10, bold=pos == 0, fill=ink) if queue_text else ""])
        if pos == 0:  # a notch on the block the next allocation pops
            body += f'<path d="M{x} {y} L{x + 10} {y} L{x} {y + 10} Z" class="bv-fg"/>'
        if i in touched:
            body += (f'<rect x="{x - 1.5}" y="{y - 1.5}" width="{cell_w + 3}" height="{cell_h + 3}" rx="4" '
                     f'fill="none" class="bv-touch" stroke-width="3" stroke-dasharray="5 3"/>')
        if i == selected:
            body += (f'<rect x="{x - 3}" y="{y - 3}" width="{cell_w + 6}" height="{cell_h + 6}" rx="5" '
                     f'fill="none" class="bv-sel" stroke-width="2"/>')
        cells.append(Cell(attrs, body))
    nrows = (snapshot.num_blocks + ncols - 1) // ncols
    bottom = top + nrows * (cell_h + GAP)
    width = max(PAD * 2 + ncols * (cell_w + GAP), text_width(header, 12) + 2 * PAD)
    legend_svg = ""
    if legend:
        legend_svg, legend_w, legend_h = render_legend(PAD, bottom + 6, lang)
        width = max(width, legend_w + 2 * PAD)
        bottom += 6 + legend_h
    root = svg_root(width, bottom + PAD, view="pool", step=snapshot.step, label=header)
    root["data-num-blocks"] = str(snapshot.num_blocks)
    head = background(width, bottom + PAD) + text(PAD, PAD + 12, header, 12, bold=True)
    return PoolPicture(root, head, tuple(cells), legend_svg)


def render_legend(x: float, y: float, lang: str = "en") -> tuple[str, float, float]:
    """Swatch, glyph, name and meaning of each state, then the two markers. Returns (svg, width, height)."""
    parts, width, row = [], 0.0, 17
    for k, state in enumerate(BlockState):
        style = STATE_STYLES[state]
        yy = y + k * row
        line = f'{t(f"state.{state.value}", lang)}: {t(f"state.{state.value}.meaning", lang)}'
        parts.append(f'<rect x="{x}" y="{yy}" width="22" height="14" rx="2" fill="{style.fill}" class="bv-line"/>')
        parts.append(text(x + 11, yy + 11, style.glyph, 11, anchor="middle", fill=style.text))
        parts.append(text(x + 28, yy + 11, line, 11))
        width = max(width, 28 + text_width(line, 11))
    yy = y + len(BlockState) * row
    parts.append(f'<rect x="{x}" y="{yy}" width="22" height="14" rx="2" fill="none" class="bv-touch" '
                 f'stroke-width="3" stroke-dasharray="5 3"/>')
    parts.append(text(x + 28, yy + 11, t("legend.touched", lang), 11))
    yy += row
    parts.append(f'<path d="M{x} {yy} L{x + 10} {yy} L{x} {yy + 10} Z" class="bv-fg"/>')
    parts.append(text(x + 28, yy + 11, t("legend.next", lang), 11))
    width = max(width, 28 + text_width(t("legend.touched", lang), 11), 28 + text_width(t("legend.next", lang), 11))
    return "".join(parts), width, (len(BlockState) + 2) * row


def holders(snapshot: Snapshot, block_id: int) -> list[str]:
    return [seq.label for seq in snapshot.seqs.values() if block_id in seq.block_table]


def render_block_detail(snapshot: Snapshot, block_id: int, *, parents: dict[int, int] | None = None,
                        lang: str = "en", decode: Decode | None = None) -> str:
    """Everything about one block, as an HTML table. `parents`: hash -> parent hash, from
    HashRegistered events (see TraceIndex); a hash's parent is unknown until one was seen."""
    decode = decode or default_decode
    block = snapshot.blocks[block_id]
    token_ids = block.token_ids or filling_tokens(snapshot).get(block_id, ())
    state = classify_block(snapshot, block_id)
    style = STATE_STYLES[state]
    parent = (parents or {}).get(block.hash)
    if block.hash == -1:
        parent_text = "-"
    elif parent is None:
        parent_text = t("detail.unknown", lang)
    else:
        parent_text = t("detail.root", lang) if parent == -1 else full_hash(parent)
    mapped = snapshot.hash_to_block_id.get(block.hash) if block.hash != -1 else None
    pos = snapshot.free_block_ids.index(block_id) if block_id in snapshot.free_block_ids else None
    rows = [
        ("detail.state", f'<span style="background:{style.fill};color:{style.text};padding:0 4px;border-radius:3px">'
                         f'{style.glyph} {esc(t(f"state.{state.value}", lang))}</span> '
                         f'{esc(t(f"state.{state.value}.meaning", lang))}'),
        ("detail.ref_count", str(block.ref_count)),
        ("detail.hash", esc(full_hash(block.hash))),
        ("detail.parent", esc(parent_text)),
        ("detail.map", esc("-" if mapped is None else t("detail.map_to", lang, block=mapped))),
        ("detail.token_ids", esc(list(token_ids))),
        ("detail.text", esc(f"“{decode(token_ids)}”" if token_ids else "-")),
        ("detail.holders", esc(", ".join(holders(snapshot, block_id)) or "-")),
        ("detail.queue", esc("-" if pos is None else str(pos) + (f' ({t("pool.next", lang)})' if pos == 0 else ""))),
    ]
    body = "".join(f'<tr><th style="text-align:left;padding-right:8px">{esc(t(key, lang))}</th>'
                   f'<td style="font-family:monospace">{value}</td></tr>' for key, value in rows)
    title = esc(t("detail.title", lang, block=block_id, step=snapshot.step))
    return (f'<div class="bv-detail" role="region" aria-label="{title}" data-block-id="{block_id}" '
            f'style="color:var(--jp-ui-font-color1,#1a1a1a);background:var(--jp-layout-color1,#fff);'
            f'border:1px solid var(--jp-border-color1,#8a8a8a);padding:6px;font-size:12px">'
            f'<b>{title}</b><table>{body}</table></div>')

