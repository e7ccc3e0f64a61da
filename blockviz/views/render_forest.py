"""A vLLM prefix cache at one step, drawn from its KV events: the forest of cached block chains.

Each cached block is a cell: its short hash, its tokens as text, the step it was stored at. A
child sits right of its parent, so a prompt's cached prefix reads left to right and requests
that share a prefix branch off the same cell, as in a radix tree. Blocks stored at this step are
outlined; blocks removed at this step stay drawn once, dashed and marked ✗. Events carry hashes,
never physical block ids, ref counts or the free queue, so those are not drawn; a block whose
parent is no longer cached starts its own tree, marked "…".
"""
from dataclasses import dataclass
from typing import Callable

from blockviz.i18n import t
from blockviz.views.svg import clip, esc, svg_document, text, text_width, visible
from blockviz.views.theme import OKABE_ITO, STATE_STYLES
from blockviz.states import BlockState
from blockviz.vllm.index import BlockRecord
from blockviz.vllm.watch import Picture

Decode = Callable[[tuple[int, ...]], str]

CELL_W, CELL_H, GAP_X, GAP_Y, LEFT, TOP = 150, 46, 26, 10, 10, 58
MAX_CELLS = 400              # a pool sized from GPU memory can hold tens of thousands: draw the newest
CACHED = STATE_STYLES[BlockState.CACHED_FREE]   # cached content a prompt can hit (the events say no more)
NEW_STROKE, REMOVED_FILL, REMOVED_INK = OKABE_ITO["blue"], "#FFFFFF", "#1A1A1A"


def short(block_hash) -> str:
    """The last hex digits of a vLLM block hash (an int, or sha256 bytes); a name (str) as it is."""
    if isinstance(block_hash, str):
        return block_hash
    if isinstance(block_hash, bytes):
        return block_hash.hex()[-6:]
    return f"{block_hash & (2**64 - 1):016x}"[-6:]


def default_decode(token_ids) -> str:
    return " ".join(map(str, token_ids))


# control characters that byte-level tokens decode to are not allowed in XML: draw their pictures (U+2400…)
@dataclass
class Placed:
    record: BlockRecord
    depth: int
    row: int
    orphan: bool       # its parent is not cached (evicted first, or stored before the watch began)
    removed: bool      # removed at this step: drawn once more, dashed
    parent: BlockRecord | None = None


def layout(picture: Picture, max_cells: int = MAX_CELLS) -> tuple[dict[str, list[Placed]], int]:
    """Cells per source, placed depth-first (children in the order they were stored); how many
    cached blocks were left out to keep at most `max_cells`."""
    shown = picture.blocks[-max_cells:]
    left_out = len(picture.blocks) - len(shown)
    removed_now = [r for r in picture.info.removed if r.removed_at == picture.step]
    out: dict[str, list[Placed]] = {}
    for source in sorted({r.source for r in shown} | {r.source for r in removed_now}):
        records = sorted([r for r in shown if r.source == source] + [r for r in removed_now if r.source == source],
                         key=lambda r: r.stored_at)   # siblings in the order they were stored
        removed_ids = {id(r) for r in removed_now}
        by_hash = {}
        for r in records:
            by_hash.setdefault(r.hash, r)
        children: dict[object, list[BlockRecord]] = {}
        roots = []
        for r in records:
            if r.parent is not None and r.parent in by_hash and by_hash[r.parent] is not r:
                children.setdefault(r.parent, []).append(r)
            else:
                roots.append(r)
        placed: list[Placed] = []
        row = 0
        stack = [(r, 0, None) for r in reversed(roots)]
        seen = set()
        while stack:
            record, depth, parent = stack.pop()
            if id(record) in seen:
                continue
            seen.add(id(record))
            kids = children.get(record.hash, []) if by_hash.get(record.hash) is record else []
            placed.append(Placed(record, depth, row, depth == 0 and record.parent is not None,
                                 id(record) in removed_ids, parent))
            if not kids:
                row += 1
            stack.extend((kid, depth + 1, record) for kid in reversed(kids))
        out[source] = placed
    return out, left_out


def cell(p: Placed, x: float, y: float, decode: Decode, lang: str, stored_now: set[int], words: str) -> str:
    r = p.record
    new = id(r) in stored_now
    fill, ink = (REMOVED_FILL, REMOVED_INK) if p.removed else (CACHED.fill, CACHED.text)
    glyph = "✗" if p.removed else "+" if new else CACHED.glyph
    state = "removed" if p.removed else "stored" if new else "cached"
    content = visible(decode(r.token_ids))
    label = t(f"{words}cell.{state}", lang, hash=short(r.hash), tokens=content, n=len(r.token_ids),
              step=r.stored_at, copies=r.copies, medium=r.medium or "-")
    stroke = (f' stroke="{NEW_STROKE}" stroke-width="2.5"' if new
              else ' class="bv-line" stroke-width="1.2" stroke-dasharray="4 3"' if p.removed
              else ' class="bv-line" stroke-width="1"')
    copies = f" ×{r.copies}" if r.copies > 1 else ""
    head = ("… " if p.orphan else "") + short(r.hash) + copies
    return (f'<g data-hash="{esc(short(r.hash))}" data-state="{state}" data-depth="{p.depth}" '
            f'data-stored-at="{r.stored_at}" aria-label="{esc(label)}"><title>{esc(label)}</title>'
            f'<rect x="{x:g}" y="{y:g}" width="{CELL_W}" height="{CELL_H}" rx="4" fill="{fill}"{stroke}/>'
            + text(x + 6, y + 15, head, 11, bold=True, fill=ink)
            + text(x + CELL_W - 6, y + 16, glyph, 14, anchor="end", fill=ink)  # state glyphs: 14 px everywhere
            + text(x + 6, y + 30, clip(content, 23), 10, fill=ink)
            + text(x + 6, y + 42, t(f"{words}cell.meta", lang, step=r.stored_at, n=len(r.token_ids), copies=r.copies),
                   9, fill=ink)
            + "</g>")


def render_forest(picture: Picture, *, decode: Decode | None = None, lang: str = "en",
                  max_cells: int = MAX_CELLS, words: str = "forest.", title: str | None = None,
                  note: str | None = None) -> str:
    """The forest as SVG. words: the prefix of the interface strings its cells and notes use
    ("forest.": a vLLM cache; "traffic.forest.": a trace's hash ids); title, note: the two lines on top
    (default: the vLLM cache's)."""
    decode = decode or default_decode
    forests, left_out = layout(picture, max_cells)
    stored_now = picture.stored_now
    info = picture.info
    title = title or t("forest.title", lang, step=picture.step, n=len(picture.blocks), stored=len(info.stored),
                       removed=len(info.removed))
    cannot = note or t("forest.cannot", lang)
    parts = [text(LEFT, 18, title, 12, bold=True), text(LEFT, 34, cannot, 10, cls="bv-muted")]
    if info.cleared:
        parts.append(text(LEFT, 48, t("forest.cleared", lang), 10, bold=True, fill=OKABE_ITO["vermillion"]))
    y, width = TOP, max(560, text_width(title, 12) + 2 * LEFT, text_width(cannot, 10) + 2 * LEFT)
    for source, placed in forests.items():
        parts.append(text(LEFT, y, t(f"{words}source", lang, source=source, n=sum(not p.removed for p in placed)),
                          11, bold=True))
        y += 8
        rows = max((p.row for p in placed), default=-1) + 1
        position = {}
        for p in placed:
            x, cy = LEFT + p.depth * (CELL_W + GAP_X), y + p.row * (CELL_H + GAP_Y)
            position[id(p.record)] = (x, cy)
            width = max(width, x + CELL_W + LEFT)
        for p in placed:   # edges under the cells
            if p.parent is not None:
                (px, py), (cx, cy) = position[id(p.parent)], position[id(p.record)]
                mid, py, cy = cx - GAP_X / 2, py + CELL_H / 2, cy + CELL_H / 2   # an elbow, as in a tree listing
                for x1, y1, x2, y2 in ((px + CELL_W, py, mid, py), (mid, py, mid, cy), (mid, cy, cx, cy)):
                    parts.append(f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" class="bv-line" '
                                 f'stroke-width="1.2"/>')
        for p in placed:
            x, cy = position[id(p.record)]
            parts.append(cell(p, x, cy, decode, lang, stored_now, words))
        y += rows * (CELL_H + GAP_Y) + 18
    if not forests:
        parts.append(text(LEFT, y, t(f"{words}empty", lang), 11, cls="bv-muted"))
        y += 20
    if left_out:
        parts.append(text(LEFT, y, t(f"{words}left_out", lang, n=left_out), 10, cls="bv-muted"))
        y += 16
    return svg_document(width, y + 4, "".join(parts), view="vllm-forest", step=picture.step, label=title)


def render_evictions(picture: Picture, *, decode: Decode | None = None, lang: str = "en") -> str:
    """The blocks removed up to this step, oldest first, as an HTML list (what vLLM evicted, in order)."""
    decode = decode or default_decode
    if not picture.evictions:
        return f'<div class="bv-vllm-evictions"><p>{esc(t("evictions.none", lang))}</p></div>'
    items = "".join(f'<li data-hash="{esc(short(r.hash))}" data-removed-at="{r.removed_at}"'
                    f'{" data-now" if r.removed_at == picture.step else ""}>'
                    f'{esc(t("evictions.item", lang, step=r.removed_at, hash=short(r.hash), tokens=clip(visible(decode(r.token_ids)), 40), lived=r.removed_at - r.stored_at))}</li>'
                    for r in picture.evictions)
    return (f'<div class="bv-vllm-evictions"><p>{esc(t("evictions.title", lang, n=len(picture.evictions)))}</p>'
            f'<ol>{items}</ol></div>')


def counters(picture: Picture, server: dict[str, float] | None, problems: int) -> dict[str, object]:
    """The numbers the counter strip shows at this step."""
    info = picture.info
    hit_rate = None
    if server and server.get("queries"):
        hit_rate = server["hits"] / server["queries"]
    return {"stored": info.stored_total, "removed": info.removed_total, "resident": len(picture.blocks),
            "stored_now": len(info.stored), "removed_now": len(info.removed), "lost": info.lost_before,
            "problems": problems, "hit_rate": hit_rate, "via": info.via}


def render_counters(values: dict[str, object], *, lang: str = "en") -> str:
    hit = values["hit_rate"]
    hit_text = t("counters.hit_rate", lang, rate=f"{hit:.0%}") if hit is not None else t("counters.no_hit_rate", lang)
    cells = [t("counters.resident", lang, n=values["resident"]), t("counters.stored", lang, n=values["stored"]),
             t("counters.removed", lang, n=values["removed"]), hit_text]
    if values["problems"]:
        cells.append(t("counters.problems", lang, n=values["problems"]))
    if values["lost"]:
        cells.append(t("counters.lost", lang, n=values["lost"]))
    return '<div class="bv-vllm-counters">' + "".join(f"<span>{esc(c)}</span>" for c in cells) + "</div>"


def step_line(picture: Picture) -> str:
    """One line per batch for `blockviz vllm watch` (English: a terminal log)."""
    info = picture.info
    extra = (" · cleared" if info.cleared else "") + (f" · {info.lost_before} lost before" if info.lost_before else "")
    return (f"step {picture.step} · {info.source} seq {info.seq} ({info.via}) · +{len(info.stored)} stored "
            f"-{len(info.removed)} removed · {len(picture.blocks)} cached{extra}")


def forest_text(picture: Picture, decode: Decode | None = None) -> str:
    """The cached chains as indented text, one block a line."""
    decode = decode or default_decode
    forests, left_out = layout(picture)
    lines = []
    for source, placed in forests.items():
        lines.append(f"  {source}")
        for p in placed:
            mark = "✗" if p.removed else "+" if id(p.record) in picture.stored_now else "·"
            lines.append(f"  {'  ' * p.depth}{mark} {'… ' if p.orphan else ''}{short(p.record.hash)} "
                         f"{clip(visible(decode(p.record.token_ids)), 60)}")
    if left_out:
        lines.append(f"  … {left_out} older blocks not shown")
    return "\n".join(lines)
