"""The block pool: every physical block with its lifecycle state, as SVG (and one block in detail, as HTML)."""
import re
from dataclasses import dataclass
from typing import Callable, Iterable, NamedTuple

import numpy as np

from blockviz.i18n import t
from blockviz.states import CODE, STATES, BlockState, classify_block, state_codes, tree_pages
from blockviz.text import FOLD_ABOVE, full_hash, grouped, short_hash
from blockviz.recording.events import CacheProbe, Event, HashRegistered, NodeInserted, PageDeduplicated
from blockviz.recording.snapshot import Snapshot
from blockviz.views.glyphs import BOX, glyph
from blockviz.views.layout import NOTEBOOK, Layout
from blockviz.views.svg import (CHAR_WIDTH, attrs_markup, background, clip, columns, esc, svg_root, text, text_width,
                                visible)
from blockviz.views.theme import STATE_STYLES, theme_css

Decode = Callable[[tuple[int, ...]], str]

COMPACT_ABOVE = 256          # more blocks than this: small cells with the glyph only
# width, height, columns: at most 800 px wide, the pane a 900 px notebook column leaves (a layout's
# cell is the full one; compact cells are for large pools, which only the notebook's layout draws)
FULL_CELL = (*NOTEBOOK.cell, 7)
COMPACT_CELL = (22, 22, 30)
GAP = NOTEBOOK.gap
PAD = NOTEBOOK.pad
# In pools of more than FOLD_ABOVE blocks (blockviz/text.py), long runs of idle blocks in one
# free-queue state fold into one cell each (after a while of traffic most of the pool is cached-free:
# see fold_runs).
FOLD_MIN = 64                # shorter runs are drawn block by block: a folded run takes a whole row
GLYPH = 14                   # font size of a state glyph written as text (the chain and mapping views, the detail)
SWATCH_W, LEGEND_ROW = 26, 21


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
        elif isinstance(event, NodeInserted):
            touched.update(event.pages)   # under a radix tree: its pages are the tree's now
        elif isinstance(event, PageDeduplicated):
            touched.update((event.own, event.tree))   # a request's page given up for the tree's
    return touched


def filling_tokens(snapshot: Snapshot) -> dict[int, tuple[int, ...]]:
    """Tokens a request keeps in each owned, unhashed block. Block.token_ids is only set when
    hash_blocks registers a full block, so a filling block's content lives in its request (and under
    a radix tree, where no page is hashed, a cached page's in its node's edge)."""
    tokens = {}
    B = snapshot.block_size
    tree = getattr(snapshot, "tree", None)
    for node in () if tree is None else tree.nodes.values():
        for k, page in enumerate(node.pages):
            tokens[page] = node.token_ids[k * B:(k + 1) * B]
    for seq in snapshot.seqs.values():
        for i, block_id in enumerate(seq.block_table):
            if snapshot.blocks[block_id].hash == -1:
                tokens[block_id] = seq.token_ids[i * B:(i + 1) * B]
    return tokens


def phase_name(snapshot: Snapshot, lang: str) -> str:
    return t({None: "phase.start", True: "phase.prefill", False: "phase.decode"}[snapshot.is_prefill], lang)


class Cell(NamedTuple):  # a tuple, not a dataclass: a pool makes thousands per step
    key: int               # its first block: cells are in block order, one key each
    attrs: dict[str, str]  # of the cell's <g>, unescaped: what a page sets with setAttribute
    body: str              # the markup inside it


@dataclass(frozen=True)
class PoolPicture:
    """The pool in the parts a page can update one at a time: the <svg> element's attributes, the
    header, the outlines of the blocks changed this step, the cells in block order and the legend.
    A cell shows one block, or in a large pool a folded run of idle blocks in one state
    (data-block-id to data-last-block-id). svg() is the whole document."""
    root: dict[str, str]
    head: str
    cells: tuple[Cell, ...]
    legend: str
    # one path under the cells, not a ring in each: a prefill changes hundreds of blocks, and the
    # next step takes all their rings away again, so a page redraws one element for them instead of
    # hundreds of cells (docs/benchmarks.md, Views)
    touched: str = ""

    def svg(self) -> str:
        cells = "".join([f"<g {attrs_markup(cell.attrs)}>{cell.body}</g>" for cell in self.cells])
        return (f'<svg {attrs_markup(self.root)}><style>{theme_css()}</style><g data-part="head">{self.head}</g>'
                f'<g data-part="touched">{self.touched}</g><g data-part="cells">{cells}</g>'
                f'<g data-part="legend">{self.legend}</g></svg>')


def render_pool(snapshot: Snapshot, events: Iterable[Event] = (), *, lang: str = "en", decode: Decode | None = None,
                selected: int | None = None, compact: bool | None = None, legend: bool = True,
                columns: int | None = None, layout: Layout = NOTEBOOK) -> str:
    return pool_picture(snapshot, events, lang=lang, decode=decode, selected=selected, compact=compact,
                        legend=legend, columns=columns, layout=layout).svg()


def queue_places(snapshot: Snapshot) -> np.ndarray:
    """Each block's place in the free queue (0: the next allocation), -1 for a block in use."""
    queue = snapshot.columns.queue()
    places = np.full(snapshot.num_blocks, -1, dtype=np.int64)
    places[queue] = np.arange(len(queue))
    return places


# States whose blocks fold, when idle: ref 0, so a compact cell of one (its colour and glyph) says
# no more than its run's cell does. Stale-free blocks stay alone: each is the surprise of a hash that
# moved on, which its own detail explains, and they are few. (Under a radix tree a cached-free page
# is in the tree, not the free queue: it has no queue place, and no allocation takes it next.)
FOLDING = (CODE[BlockState.FREE], CODE[BlockState.CACHED_FREE])


def state_meaning(state: BlockState, lang: str, radix: bool = False) -> str:
    """What a state says of a hash chain's block, or with `radix` of a radix tree's page (states.py)."""
    return t(f"state.{state.value}.meaning{'.radix' if radix else ''}", lang)


def fold_runs(snapshot: Snapshot, codes: np.ndarray, places: np.ndarray, touched: set[int],
              selected: int | None, compact: bool) -> dict[int, int]:
    """first -> last block of each run of at least FOLD_MIN consecutive blocks in one state that
    folds, untouched this step, not selected, not the next allocation. A compact cell shows no queue
    place (only whether a block waits, and if next), so there free and cached-free blocks fold; where
    cells show their place (and tokens), only free blocks without tokens, consecutive in the free
    queue too: all a cell could say of each is one number more than of the one before."""
    foldable = (codes == FOLDING[0]) & ~snapshot.columns.tokens
    if compact:
        foldable |= codes == FOLDING[1]
    # in the queue but not its head; or, under a radix tree, a cached-free page (out of the queue)
    foldable &= (places > 0) | ((codes == FOLDING[1]) & ~snapshot.columns.free)
    foldable[list(touched)] = False
    if selected is not None and 0 <= selected < len(codes):
        foldable[selected] = False
    linked = foldable[:-1] & foldable[1:] & (codes[1:] == codes[:-1])  # block i and i + 1
    if not compact:
        linked &= places[1:] == places[:-1] + 1
    edges = np.flatnonzero(np.diff(np.concatenate(([0], linked.astype(np.int8), [0]))))
    return {int(first): int(last) for first, last in zip(edges[::2], edges[1::2]) if last - first + 1 >= FOLD_MIN}


def pool_picture(snapshot: Snapshot, events: Iterable[Event] = (), *, lang: str = "en", decode: Decode | None = None,
                 selected: int | None = None, compact: bool | None = None, legend: bool = True,
                 kept: dict | None = None, columns: int | None = None, layout: Layout = NOTEBOOK) -> PoolPicture:
    """`kept`: a dict a caller keeps from one call to the next (a widget): a block (or a folded run,
    keyed ("fold", first)) whose cell would come out the same is not drawn again (most of a large
    pool, from one step to the next).
    `columns`: cells per row (default: as many as 800 px hold), e.g. what the page's pane has room
    for; the header is cut and the legend's lines wrap to the width they make.
    `layout`: the sizes of the cells and texts (views/layout.py)."""
    decode = decode or default_decode
    compact = snapshot.num_blocks > COMPACT_ABOVE if compact is None else compact
    cell_w, cell_h, ncols = COMPACT_CELL if compact else (*layout.cell, FULL_CELL[2])
    gap, pad = layout.gap, layout.pad
    ncols = max(1, min(columns or ncols, snapshot.num_blocks))
    touched = touched_blocks(events)
    cols, codes, places = snapshot.columns, state_codes(snapshot), queue_places(snapshot)
    counts = dict(zip(STATES, np.bincount(codes, minlength=len(STATES)).tolist()))  # the legend's, every block
    folds = fold_runs(snapshot, codes, places, touched, selected, compact) if snapshot.num_blocks > FOLD_ABOVE else {}
    filling = {} if compact else filling_tokens(snapshot)
    names = {state: t(f"state.{state.value}", lang) for state in BlockState}
    radix = tree_pages(snapshot) is not None   # a radix tree's pages (policy "sglang"): the states' other meanings
    words = {"block": t("pool.block", lang), "ref": t("pool.ref", lang), "hash": t("pool.hash", lang),
             "tokens": t("pool.tokens", lang), "queue": t("pool.queue", lang), "next": t("pool.next", lang),
             "queued": t("pool.queued", lang), "touched": t("pool.touched", lang)}

    header = t("pool.header", lang, step=snapshot.step, phase=phase_name(snapshot, lang), n=snapshot.num_blocks,
               free=int(cols.free.sum()), B=snapshot.block_size)
    top = pad + layout.title + 10
    cells, rings = [], []  # rings: the top left of each cell changed this step
    # plain ints, read per cell: a compact pool's cells need no block read one by one
    code_of, place_of, ref_of = codes.tolist(), places.tolist(), cols.ref.tolist()
    hash_of, hashed_of = cols.hash.tolist(), cols.hashed.tolist()
    row = col = i = 0  # cells flow in rows; a folded run takes a row of its own
    while i < snapshot.num_blocks:
        if i in folds:
            row += col > 0
            args = (i, folds[i], STATES[code_of[i]], None if compact else place_of[i], pad,
                    top + row * (cell_h + gap), ncols * (cell_w + gap) - gap, cell_h, lang, radix)
            old = kept.get(("fold", i)) if kept is not None else None
            if old is not None and old[0] == args:
                cell = old[1]
            else:
                cell = fold_cell(*args)
                if kept is not None:
                    kept[("fold", i)] = (args, cell)
            cells.append(cell)
            row, col, i = row + 1, 0, folds[i] + 1
            continue
        ref, h = ref_of[i], (hash_of[i] if hashed_of[i] else -1)
        state = STATES[code_of[i]]
        x = pad + col * (cell_w + gap)
        y = top + row * (cell_h + gap)
        pos = place_of[i] if place_of[i] >= 0 else None
        # compact pools are large: no token text (the detail shows it), no tooltip
        token_ids = () if compact else snapshot.blocks[i].token_ids or filling.get(i, ())
        # everything the cell shows: a compact cell says only whether a block waits in the queue, and if next
        key = (lang, compact, state, ref, h, pos if pos is None or not compact else min(pos, 1),
               i in touched, i == selected, x, y, token_ids, decode, layout)
        old = kept.get(i) if kept is not None else None
        if old is not None and old[0] == key:
            cell = old[1]
        else:
            cell = block_cell(i, ref, h, state, pos, x, y, cell_w, cell_h, compact, visible(decode(token_ids)) if
                              token_ids else "", i in touched, i == selected, names, words, layout)
            if kept is not None:
                kept[i] = (key, cell)
        cells.append(cell)
        if i in touched:
            rings.append((x, y))
        col, i = col + 1, i + 1
        if col == ncols:
            row, col = row + 1, 0
    bottom = top + (row + (col > 0)) * (cell_h + gap)
    width = pad * 2 + ncols * (cell_w + gap)
    if columns is None:  # the default picture is as wide as its header and legend need
        width = max(width, text_width(header, layout.title) + 2 * pad)
    legend_svg = ""
    if legend and layout.legend_columns > 1:
        legend_svg, legend_h = short_legend(pad, bottom + 6, width - 2 * pad, counts, lang, layout)
        bottom += 6 + legend_h
    elif legend:
        legend_svg, legend_w, legend_h = render_legend(
            pad, bottom + 6, counts, lang, folds=None if snapshot.num_blocks <= FOLD_ABOVE else compact,
            max_width=None if columns is None else width - 2 * pad, radix=radix)
        width = max(width, legend_w + 2 * pad)
        bottom += 6 + legend_h
    root = svg_root(width, bottom + pad, view="pool", step=snapshot.step, label=header)
    root["data-num-blocks"] = str(snapshot.num_blocks)
    # what a page needs to choose `columns` for its width: cells take cell-step px each, plus 2 pad
    root["data-columns"], root["data-cell-step"], root["data-pad"] = str(ncols), str(cell_w + gap), str(pad)
    shown_header = header if columns is None else clip(header, int((width - 2 * pad) / (CHAR_WIDTH * layout.title)))
    head = background(width, bottom + pad) + text(pad, pad + layout.title, shown_header, layout.title, bold=True)
    return PoolPicture(root, head, tuple(cells), legend_svg, touched_rings(rings, cell_w, cell_h))


def block_cell(i: int, ref: int, h: int, state: BlockState, pos: int | None, x: float, y: float, cell_w: float, cell_h: float,
               compact: bool, content: str, touched: bool, selected: bool, names: dict, words: dict,
               layout: Layout = NOTEBOOK) -> Cell:
    """One block's cell: its attributes (what a page sets one by one) and its markup: its number and
    glyph, then a line each for its state, tokens, ref count and hash, and queue place."""
    style = STATE_STYLES[state]
    label = f'{words["block"]} {i}: {names[state]}, {words["ref"]} {ref}, {words["hash"]} {short_hash(h)}'
    if not compact:
        label += f', {words["tokens"]} “{content}”'
    # An allocation moves every free block one place up the queue: a compact (large) pool leaves
    # the places to the detail panel, so such a step changes only the blocks it touched.
    if pos is not None:
        label += f', {words["queued"]}' if compact else f', {words["queue"]} {pos}'
        label += f' ({words["next"]})' if pos == 0 else ""
    if touched:
        label += f', {words["touched"]}'
    attrs = {"data-block-id": str(i), "data-state": state.value, "data-ref": str(ref)}
    if not compact:
        attrs["data-queue"] = str(-1 if pos is None else pos)
    attrs["aria-label"] = label
    body = (f'<rect x="{x}" y="{y}" width="{cell_w}" height="{cell_h}" rx="3" fill="{style.fill}" '
            f'class="bv-line" stroke-width="1"/>')
    if compact:  # the glyph only: a compact pool has thousands of cells
        body += glyph(state, x + (cell_w - BOX) / 2, y + (cell_h - BOX) / 2)
    else:
        ink, small, line = style.text, layout.small, layout.line
        fits = int((cell_w - 10) / (CHAR_WIDTH * small))  # columns of small text inside the cell
        queue_text = "" if pos is None else f"q{pos}" + (f' ▶ {words["next"]}' if pos == 0 else "")
        ref_text = f'{words["ref"]} {ref} · '
        ref_text += short_hash(h, max(4, min(6, fits - columns(ref_text))))  # as much hash as fits
        first = y + layout.title + 2  # the baseline of the number's line
        body += "".join([
            f"<title>{esc(label)}</title>",
            text(x + 5, first, f"#{i}", layout.title, bold=True, fill=ink),
            glyph(state, x + cell_w - 5 - layout.glyph, y + 3, layout.glyph),
            text(x + 5, first + line, clip(names[state], fits), small, fill=ink),
            text(x + 5, first + 2 * line, clip(content, int((cell_w - 10) / (CHAR_WIDTH * layout.text))), layout.text,
                 fill=ink),  # inside its cell
            text(x + 5, first + 3 * line, ref_text, small, fill=ink),
            text(x + 5, first + 4 * line, queue_text, small, bold=pos == 0, fill=ink) if queue_text else ""])
    if pos == 0:  # a notch on the block the next allocation pops
        notch = round(layout.glyph * 5 / 7)
        body += f'<path d="M{x} {y} L{x + notch} {y} L{x} {y + notch} Z" class="bv-fg"/>'
    if selected:
        body += selection(x, y, cell_w, cell_h)
    return Cell(i, attrs, body)


TOUCH_STROKE = 'fill="none" class="bv-touch" stroke-width="3.5" stroke-dasharray="6 3"'


def touched_outline(x: float, y: float, w: float, h: float) -> str:
    """Changed this step: a thick dashed ring in the page's accent colour (the legend's swatch)."""
    return f'<rect x="{x - 1.5}" y="{y - 1.5}" width="{w + 3}" height="{h + 3}" rx="4" {TOUCH_STROKE}/>'


def touched_rings(corners: list[tuple[float, float]], w: float, h: float) -> str:
    """The rings of touched_outline round the cells whose top left corners are `corners`, as one
    path (its outer corners rounded by the join), drawn under the cells; "" for none."""
    if not corners:
        return ""
    d = " ".join(f"M{x - 1.5:g} {y - 1.5:g} L{x + w + 1.5:g} {y - 1.5:g} L{x + w + 1.5:g} {y + h + 1.5:g} "
                 f"L{x - 1.5:g} {y + h + 1.5:g} Z" for x, y in corners)
    return f'<path d="{d}" {TOUCH_STROKE} stroke-linejoin="round" pointer-events="none"/>'


def selection(x: float, y: float, w: float, h: float) -> str:
    """The block shown in the detail panel: a solid ring outside any other mark, on a halo of the
    page's background so it reads on every fill."""
    return (f'<rect x="{x - 4}" y="{y - 4}" width="{w + 8}" height="{h + 8}" rx="6" fill="none" '
            f'class="bv-sel-halo" stroke-width="6"/><rect x="{x - 4}" y="{y - 4}" width="{w + 8}" '
            f'height="{h + 8}" rx="6" fill="none" class="bv-sel" stroke-width="3"/>')


def fold_summary(first: int, last: int, state: BlockState, queue_first: int | None, lang: str,
                 radix: bool = False) -> str:
    n = last - first + 1
    if queue_first is None:  # a compact pool: the run's state, its blocks and how many
        return t("pool.fold_run", lang, first=grouped(first), last=grouped(last), n=grouped(n),
                 state=t(f"state.{state.value}", lang), meaning=state_meaning(state, lang, radix))
    return t("pool.fold", lang, first=grouped(first), last=grouped(last), n=grouped(n), q0=grouped(queue_first),
             q1=grouped(queue_first + n - 1))


def fold_cell(first: int, last: int, state: BlockState, queue_first: int | None, x: float, y: float, w: float,
              h: float, lang: str, radix: bool = False) -> Cell:
    """A run of idle blocks in one state (see fold_runs) as one band, a row wide; `queue_first`: the
    first one's queue place where the pool's cells say theirs (data-queue), else None."""
    style = STATE_STYLES[state]
    label = fold_summary(first, last, state, queue_first, lang, radix)
    # a block cell's attributes, then the one it lacks: a page that turns one into the other appends it
    # (setAttribute), so its markup stays the same as this picture's
    attrs = {"data-block-id": str(first), "data-state": state.value, "data-ref": "0",
             **({} if queue_first is None else {"data-queue": str(queue_first)}), "aria-label": label,
             "data-last-block-id": str(last)}
    body = (f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="3" fill="{style.fill}" class="bv-line" '
            f'stroke-width="1"/><title>{esc(label)}</title>'
            + glyph(state, x + 4, y + (h - BOX) / 2)
            + text(x + 24, y + h / 2 + 4, clip(label, int((w - 30) / (CHAR_WIDTH * 11))), 11, fill=style.text))
    return Cell(first, attrs, body)


def swatch(x: float, y: float, state: BlockState, folded: bool = False) -> str:
    """A legend line's swatch: the state's colour with its glyph (and "…" for a folded run)."""
    style = STATE_STYLES[state]
    mark = (glyph(state, x + 2, y + 2) + text(x + SWATCH_W - 1, y + 14, "…", 11, anchor="end", fill=style.text)
            if folded else glyph(state, x + (SWATCH_W - BOX) / 2, y + 2))
    return f'<rect x="{x}" y="{y}" width="{SWATCH_W}" height="18" rx="2" fill="{style.fill}" class="bv-line"/>' + mark


def wrap(line: str, width: float | None, size: float) -> list[str]:
    """`line` in pieces each at most `width` px wide at `size`, broken at spaces (or, in a word too
    long, between characters, as Chinese has no spaces); None: one piece."""
    if width is None or text_width(line, size) <= width:
        return [line]
    pieces, piece = [], ""
    for word in re.split(r"(?<= )", line):  # each word keeps its space
        while word:
            if text_width(piece + word, size) <= width:
                piece, word = piece + word, ""
            elif piece:
                pieces.append(piece.rstrip())
                piece = ""
            else:  # a word wider than the line: as many characters as fit
                fit = 1
                while fit < len(word) and text_width(word[:fit + 1], size) <= width:
                    fit += 1
                pieces.append(word[:fit])
                word = word[fit:]
    return pieces + ([piece.rstrip()] if piece.strip() else [])


def short_legend(x: float, y: float, width: float, counts: dict[BlockState, int], lang: str,
                 layout: Layout) -> tuple[str, float]:
    """Each state's swatch, glyph (as text, so a page can read it: demo/static/class_page.js), name and
    how many blocks are in it now, layout.legend_columns a row across `width`. Returns (svg, height)."""
    per_row, row_h, size = layout.legend_columns, layout.line + 8, layout.text
    swatch_w, swatch_h = round(layout.glyph * 1.5), layout.glyph + 2
    parts = []
    for k, state in enumerate(BlockState):
        style = STATE_STYLES[state]
        xx, yy = x + (k % per_row) * width / per_row, y + (k // per_row) * row_h
        baseline = yy + 4 + swatch_h - 5
        parts.append(f'<rect x="{xx:g}" y="{yy + 4:g}" width="{swatch_w}" height="{swatch_h}" rx="3" '
                     f'fill="{style.fill}" class="bv-line" data-state="{state.value}"/>'
                     + text(xx + swatch_w / 2, baseline, style.glyph, size, anchor="middle", fill=style.text)
                     + text(xx + swatch_w + 8, baseline, f'{t(f"state.{state.value}", lang)} {counts[state]}', size))
    return "".join(parts), -(-len(BlockState) // per_row) * row_h


def render_legend(x: float, y: float, counts: dict[BlockState, int], lang: str = "en",
                  folds: bool | None = None, max_width: float | None = None,
                  radix: bool = False) -> tuple[str, float, float]:
    """Swatch, glyph, name, how many blocks are in it now and meaning of each state, then the two
    markers, and unless `folds` is None what a folded run is (True: a compact pool's, of free or
    cached-free blocks; False: one whose cells show queue places); with `max_width`, each line's
    words wrap to it; `radix`: the meanings of a radix tree's pages (policy "sglang"). Returns (svg, width, height)."""
    parts, width, yy = [], 0.0, y
    room = None if max_width is None else max(60.0, max_width - SWATCH_W - 6)

    def words(line: str) -> int:  # the line's words, wrapped, after its swatch: the rows it took
        nonlocal width
        pieces = wrap(line, room, 11)
        for k, piece in enumerate(pieces):
            parts.append(text(x + SWATCH_W + 6, yy + 13 + k * (LEGEND_ROW - 6), piece, 11))
            width = max(width, SWATCH_W + 6 + text_width(piece, 11))
        return LEGEND_ROW + (len(pieces) - 1) * (LEGEND_ROW - 6)

    for state in BlockState:
        line = t("legend.state", lang, name=t(f"state.{state.value}", lang), count=counts[state],
                 meaning=state_meaning(state, lang, radix))
        parts.append(swatch(x, yy, state))
        yy += words(line)
    parts.append(touched_outline(x + 1.5, yy + 1.5, SWATCH_W - 3, 15))
    yy += words(t("legend.touched", lang))
    parts.append(f'<path d="M{x} {yy} L{x + 10} {yy} L{x} {yy + 10} Z" class="bv-fg"/>')
    yy += words(t("legend.next", lang))
    if folds is not None:
        parts.append(swatch(x, yy, BlockState.FREE, folded=True))
        yy += words(t("legend.fold_compact" if folds else "legend.fold", lang, n=FOLD_MIN))
    return "".join(parts), width, yy - y


def holders(snapshot: Snapshot, block_id: int) -> list[str]:
    return [seq.label for seq in snapshot.seqs.values() if block_id in seq.block_table]


def render_block_detail(snapshot: Snapshot, block_id: int, *, parents: dict[int, int] | None = None,
                        lang: str = "en", decode: Decode | None = None) -> str:
    """Everything about one block, as an HTML table. `parents`: hash -> parent hash, from
    HashRegistered events (see RecordingIndex); a hash's parent is unknown until one was seen."""
    decode = decode or default_decode
    block = snapshot.blocks[block_id]
    token_ids = block.token_ids or filling_tokens(snapshot).get(block_id, ())
    state = classify_block(snapshot, block_id)
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
        ("detail.state", state_badge(state, lang, tree_pages(snapshot) is not None)),
        ("detail.ref_count", str(block.ref_count)),
        ("detail.hash", esc(full_hash(block.hash))),
        ("detail.parent", esc(parent_text)),
        ("detail.map", esc("-" if mapped is None else t("detail.map_to", lang, block=mapped))),
        ("detail.token_ids", esc(list(token_ids))),
        ("detail.text", esc(f"“{decode(token_ids)}”" if token_ids else "-")),
        ("detail.holders", esc(", ".join(holders(snapshot, block_id)) or "-")),
        ("detail.queue", esc("-" if pos is None else str(pos) + (f' ({t("pool.next", lang)})' if pos == 0 else ""))),
    ]
    return detail_box(t("detail.title", lang, block=block_id, step=snapshot.step), f'data-block-id="{block_id}"',
                      rows, lang)


def state_badge(state: BlockState, lang: str, radix: bool = False) -> str:
    style = STATE_STYLES[state]  # the glyph at GLYPH px in the detail's smaller text
    return (f'<span style="background:{style.fill};color:{style.text};padding:0 4px;border-radius:3px">'
            f'<span style="font-size:{GLYPH}px">{style.glyph}</span> {esc(t(f"state.{state.value}", lang))}</span> '
            f'{esc(state_meaning(state, lang, radix))}')


def detail_box(title: str, attrs: str, rows: list[tuple[str, str]], lang: str) -> str:
    """`rows`: (i18n key of the name, HTML of the value)."""
    body = "".join(f'<tr><th style="text-align:left;padding-right:8px">{esc(t(key, lang))}</th>'
                   f'<td style="font-family:monospace">{value}</td></tr>' for key, value in rows)
    title = esc(title)
    return (f'<div class="bv-detail" role="region" aria-label="{title}" {attrs} '
            f'style="color:var(--jp-ui-font-color1,#1a1a1a);background:var(--jp-layout-color1,#fff);'
            f'border:1px solid var(--jp-border-color1,#8a8a8a);padding:6px;font-size:12px">'
            f'<b>{title}</b><table>{body}</table></div>')

