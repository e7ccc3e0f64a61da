"""A trace's traffic as SVG: arrivals over time, prompt lengths, the shared-prefix tree of its hash
ids, and (for a replay) the hit rate over time.

The hash-id tree is render_forest's forest: an id names its block and every block before it, so
a trace's ids are a prefix tree, the radix tree a cache of all of them would hold. A cell is an
id (first used by request `step`, shared by `copies` requests). Thousands of requests cannot all
be drawn: blocks used by one request only are folded away (they share nothing), and of the shared
ones the most shared `max_cells` are drawn; both counts are written on the view. Keeping the
most shared keeps a prefix-closed set: every request holding a block holds its parent, so a
parent is shared at least as much as its children (ties: the parent came first).
"""
from collections import Counter

import numpy as np

from blockviz.i18n import t
from blockviz.traffic.replay import Replay
from blockviz.traffic.trace import Trace
from blockviz.views.render_forest import MAX_CELLS, render_forest
from blockviz.views.svg import svg_document, text, text_width
from blockviz.views.theme import OKABE_ITO
from blockviz.vllm.index import BlockRecord, StepInfo
from blockviz.vllm.watch import Picture

CHART_W, CHART_H, MARGIN_L, MARGIN_T, MARGIN_B = 560, 150, 48, 44, 34
SOURCE = "trace"
TREE_HEIGHT_PX = 480   # the tree scrolls inside a frame this high: a window's tree runs many screens long


def shared_blocks(trace: Trace) -> tuple[list[BlockRecord], int]:
    """One record per hash id used by two requests or more, in the order ids first appeared
    (parent: the id before it in the prompt that first used it; stored_at: that request's index;
    copies: the requests using it); and how many ids only one request used."""
    uses: Counter[int] = Counter()
    first: dict[int, tuple[int, int | None]] = {}
    for i in range(len(trace)):
        ids = trace.ids(i).tolist()
        uses.update(set(ids))
        for parent, h in zip([None] + ids[:-1], ids):
            first.setdefault(h, (i, parent))
    records = [BlockRecord(SOURCE, h, parent, (h,), 1, None, None, None, None, request, copies=uses[h])
               for h, (request, parent) in first.items() if uses[h] > 1]
    return records, sum(n == 1 for n in uses.values())


def merge_runs(records: list[BlockRecord]) -> list[BlockRecord]:
    """Runs of ids shared by the same requests, without a branch, as one cell (a radix tree's
    edge): a cell's token_ids are the ids it stands for, its hash "#first…#last". A run ends where
    a block has two children or its child fewer requests, so a run's parent always ends its run."""
    kept = {r.hash for r in records}
    children = Counter(r.parent for r in records if r.parent in kept)
    by_hash = {r.hash: r for r in records}
    runs: dict[int, list[BlockRecord]] = {}
    head: dict[int, int] = {}
    for r in records:
        p = r.parent
        if p in kept and children[p] == 1 and by_hash[p].copies == r.copies:
            head[r.hash] = head[p]
            runs[head[p]].append(r)
        else:
            head[r.hash] = r.hash
            runs[r.hash] = [r]
    name = {h: f"#{run[0].hash}" + (f"…#{run[-1].hash}" if len(run) > 1 else "") for h, run in runs.items()}
    return [BlockRecord(SOURCE, name[h], None if run[0].parent not in kept else name[head[run[0].parent]],
                        tuple(r.hash for r in run), len(run), None, None, None, None, run[0].stored_at,
                        copies=run[0].copies)
            for h, run in runs.items()]


def prefix_picture(trace: Trace, max_cells: int = MAX_CELLS) -> tuple[Picture, int, int]:
    """The shared-prefix tree as a forest Picture: the most shared ids, at most max_cells cells after
    their runs are merged; and (ids of one request folded away, shared ids left out by the cap)."""
    records, single = shared_blocks(trace)
    order = sorted(range(len(records)), key=lambda k: (-records[k].copies, k))
    lo, hi = 0, len(records)   # the most ids whose merged runs fit in max_cells (cells grow with ids)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if len(merge_runs([records[k] for k in sorted(order[:mid])])) <= max_cells:
            lo = mid
        else:
            hi = mid - 1
    cells = merge_runs([records[k] for k in sorted(order[:lo])])
    info = StepInfo(len(trace), SOURCE, 0, 0.0, 0.0, b"")
    return Picture(len(trace), cells, info, [], 0, len(trace)), single, len(records) - lo


def ids_text(ids: tuple[int, ...]) -> str:
    return ",".join(f"#{h}" for h in ids)   # no spaces: the forest shows spaces as ␣


def render_prefix_tree(trace: Trace, *, lang: str = "en", max_cells: int = MAX_CELLS) -> str:
    picture, single, capped = prefix_picture(trace, max_cells)
    title = t("traffic.tree.title", lang, name=trace.name, n=sum(len(r.token_ids) for r in picture.blocks),
              cells=len(picture.blocks), requests=len(trace))
    note = t("traffic.tree.folded", lang, single=single, capped=capped)
    return render_forest(picture, decode=ids_text, lang=lang, max_cells=max_cells, words="traffic.forest.",
                         title=title, note=note)


def chart(title: str, x_label: str, y_label: str, xs: np.ndarray, ys: np.ndarray, *, view: str,
          bars: bool, y_max: float | None = None, y_format: str = "{:g}", note: str = "") -> str:
    """A bar chart (bars=True: a bar per x, xs their left edges, all one width) or a line chart."""
    xs, ys = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    width = max(MARGIN_L + CHART_W + 16, text_width(title, 12) + 16, text_width(note, 9) + 16)
    height = MARGIN_T + CHART_H + MARGIN_B + (14 if note else 0)
    parts = [text(8, 16, title, 12, bold=True)]
    x0, y0 = MARGIN_L, MARGIN_T + CHART_H
    step = float(xs[1] - xs[0]) if bars and len(xs) > 1 else 1.0
    lo, hi = (float(xs[0]), float(xs[-1]) + (step if bars else 0)) if len(xs) else (0.0, 1.0)
    hi = hi if hi > lo else lo + 1
    top = y_max if y_max is not None else max(float(ys.max()) if len(ys) else 0.0, 1.0)
    px = lambda x: x0 + (x - lo) / (hi - lo) * CHART_W
    py = lambda y: y0 - y / top * CHART_H
    parts.append(f'<line x1="{x0}" y1="{y0}" x2="{x0 + CHART_W}" y2="{y0}" class="bv-line" stroke-width="1"/>'
                 f'<line x1="{x0}" y1="{MARGIN_T}" x2="{x0}" y2="{y0}" class="bv-line" stroke-width="1"/>')
    for value in (0, top / 2, top):
        parts.append(text(x0 - 4, py(value) + 4, y_format.format(value), 9, anchor="end", cls="bv-muted"))
    for value in (lo, (lo + hi) / 2, hi):
        parts.append(text(px(value), y0 + 13, f"{value:,.0f}", 9, anchor="middle", cls="bv-muted"))
    parts.append(text(x0 + CHART_W / 2, y0 + 27, x_label, 10, anchor="middle", cls="bv-muted"))
    parts.append(text(8, MARGIN_T - 6, y_label, 10, cls="bv-muted"))
    if bars:
        w = max(step / (hi - lo) * CHART_W - 1, 0.5)
        parts.extend(f'<rect x="{px(x):.1f}" y="{py(y):.1f}" width="{w:.1f}" height="{y0 - py(y):.1f}" '
                     f'fill="{OKABE_ITO["blue"]}" data-x="{x:g}" data-y="{y:g}"/>' for x, y in zip(xs, ys))
    elif len(xs):
        path = " ".join(f"{'M' if k == 0 else 'L'}{px(x):.1f} {py(y):.1f}" for k, (x, y) in enumerate(zip(xs, ys)))
        parts.append(f'<path d="{path}" fill="none" stroke="{OKABE_ITO["vermillion"]}" stroke-width="1.5"/>')
        parts.extend(f'<rect x="{px(x) - 2:.1f}" y="{py(y) - 2:.1f}" width="4" height="4" '
                     f'fill="{OKABE_ITO["vermillion"]}" data-x="{x:g}" data-y="{y:g}"/>' for x, y in zip(xs, ys))
    if note:
        parts.append(text(8, height - 6, note, 9, cls="bv-muted"))
    return svg_document(width, height, "".join(parts), view=view, step=0, label=title)


def render_arrivals(trace: Trace, *, bin_s: float = 60, lang: str = "en") -> str:
    counts = trace.arrivals(bin_s)
    return chart(t("traffic.arrivals.title", lang, name=trace.name, n=len(trace), bin=f"{bin_s:g}"),
                 t("traffic.seconds", lang), t("traffic.requests", lang), np.arange(len(counts)) * bin_s, counts,
                 view="traffic-arrivals", bars=True)


def render_prompt_lengths(trace: Trace, *, bins: int = 40, tokens_per_id: int = 512, lang: str = "en") -> str:
    lengths = trace.prompt_lengths(tokens_per_id)
    counts, edges = np.histogram(lengths, bins=bins, range=(0, int(lengths.max()) + 1))
    return chart(t("traffic.prompts.title", lang, n=len(trace), longest=int(lengths.max()),
                   mean=f"{lengths.mean():,.0f}"),
                 t("traffic.prompt_tokens", lang), t("traffic.requests", lang), edges[:-1], counts,
                 view="traffic-prompts", bars=True)


def render_hit_rate(run: Replay, *, bin_s: float = 60, lang: str = "en") -> str:
    starts, rates = run.hit_rate_over_time(bin_s)
    best = run.trace.theoretical_hit_rate(run.tokens_per_id)
    return chart(t("traffic.hits.title", lang, rate=f"{run.hit_rate:.1%}", pool=f"{run.pool_tokens:,}",
                   policy=run.policy, bin=f"{bin_s:g}"),
                 t("traffic.seconds", lang), t("traffic.hit_rate", lang), starts, rates * 100,
                 view="traffic-hits", bars=False, y_max=100, y_format="{:.0f}%",
                 note=t("traffic.hits.best", lang, rate=f"{best:.1%}"))


def render_traffic(run: Replay, *, bin_s: float = 60, lang: str = "en", max_cells: int = MAX_CELLS) -> str:
    """The traffic view of a replay: its trace's arrivals, prompt lengths, hit rate over time and
    shared-prefix tree, as HTML around the four SVGs."""
    trace = run.trace
    panes = [render_arrivals(trace, bin_s=bin_s, lang=lang),
             render_prompt_lengths(trace, tokens_per_id=run.tokens_per_id, lang=lang),
             render_hit_rate(run, bin_s=bin_s, lang=lang)]
    return (f'<div class="bv-traffic"><div class="bv-traffic-charts">{"".join(panes)}</div>'
            f'<div class="bv-traffic-tree" style="max-height:{TREE_HEIGHT_PX}px;overflow:auto">{render_prefix_tree(trace, lang=lang, max_cells=max_cells)}</div></div>')
