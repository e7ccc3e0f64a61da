"""SGLang's token pool (SglangBlockManager.page_states, as designs_after.PageRuns) as SVG: the pages
in rows, each run of consecutive pages in one state one bar, so a GPU-sized pool of 65,536 pages
draws as a few hundred bars, not 65,536 cells. Free, used and cached pages take the colours of the
pool view's free, cached (owned) and cached-free blocks, as they mean the same.

A request's pages can be marked (hit, recomputed, generated, and those where the two designs differ:
`marks`): an outline per run of marked pages, each with data-mark, drawn by the designs view's
stylesheet. At most max_runs bars are drawn, with a note of how many are left out, as render_radix
caps its rows.
"""
import math

from blockviz.designs_after import PAGE_STATES, PageRuns
from blockviz.i18n import t
from blockviz.markup import esc
from blockviz.states import BlockState
from blockviz.text import grouped
from blockviz.views.svg import svg_document, text, text_width
from blockviz.views.theme import STATE_STYLES

MAX_RUNS = 4096        # bars drawn; the rest are counted in a note
WIDTH = 720            # px the rows take
PAD, TOP = 8, 44
STYLE = {"free": STATE_STYLES[BlockState.FREE], "used": STATE_STYLES[BlockState.CACHED],
         "cached": STATE_STYLES[BlockState.CACHED_FREE]}


def pages_per_row(num_pages: int) -> int:
    """About four times as wide as tall, in powers of two: 12 pages in one row, 65,536 in 64 of 1,024."""
    return min(num_pages, 2 ** math.ceil(math.log2(max(1.0, 4 * math.sqrt(num_pages)))))


def pieces(first: int, last: int, per_row: int):
    """The row pieces of pages first..last: (row, first column, pages)."""
    while first <= last:
        row, col = divmod(first, per_row)
        n = min(last - first + 1, per_row - col)
        yield row, col, n
        first += n


def mark_runs(marks: dict[int, str]) -> list[tuple[int, int, str]]:
    """(first, last, mark) of consecutive pages with one mark."""
    runs: list[tuple[int, int, str]] = []
    for page in sorted(marks):
        if runs and runs[-1][1] == page - 1 and runs[-1][2] == marks[page]:
            runs[-1] = (runs[-1][0], page, marks[page])
        else:
            runs.append((page, page, marks[page]))
    return runs


def render_pages(pages: PageRuns, marks: dict[int, str] | None = None, *, lang: str = "en",
                 max_runs: int = MAX_RUNS, step: int = 0) -> str:
    """marks: page -> "hit", "recomputed" or "generated", with " differs" appended where the other
    design did the opposite."""
    per_row = max(1, pages_per_row(pages.num_pages))
    page_w = min(24.0, WIDTH / per_row)
    row_h = max(6.0, min(18.0, page_w))
    counts = pages.counts()
    title = t("pages.title", lang, n=grouped(pages.num_pages), **{s: grouped(counts[s]) for s in PAGE_STATES})
    parts = []
    drawn = 0
    names = {state: t(f"pages.{state}", lang) for state in PAGE_STATES}
    for first, end, code in zip(pages.starts.tolist(), pages.ends.tolist(), pages.codes.tolist()):
        if drawn >= max_runs:
            break
        state = PAGE_STATES[code]
        label = t("pages.run", lang, first=grouped(first), last=grouped(end - 1), n=grouped(end - first),
                  state=names[state])
        bars = "".join(f'<rect x="{PAD + col * page_w:g}" y="{TOP + row * (row_h + 2):g}" width="{n * page_w:g}" '
                       f'height="{row_h:g}" fill="{STYLE[state].fill}"/>' for row, col, n in pieces(first, end - 1, per_row))
        parts.append(f'<g class="bv-page-run" data-first="{first}" data-last="{end - 1}" data-state="{state}">'
                     f'<title>{esc(label)}</title>{bars}</g>')
        drawn += 1
    for first, last, mark in mark_runs(marks or {}):
        outline = "".join(f'<rect x="{PAD + col * page_w:g}" y="{TOP + row * (row_h + 2):g}" width="{n * page_w:g}" '
                          f'height="{row_h:g}" fill="none"/>' for row, col, n in pieces(first, last, per_row))
        parts.append(f'<g class="bv-page-mark" data-first="{first}" data-last="{last}" data-mark="{mark}">{outline}</g>')
    rows = math.ceil(pages.num_pages / per_row)
    # the pool's outline, under the bars: free pages are white, and a pool of them still shows its size
    parts.insert(0, f'<rect x="{PAD - 1:g}" y="{TOP - 1:g}" width="{per_row * page_w + 2:g}" '
                    f'height="{rows * (row_h + 2):g}" fill="none" class="bv-line"/>')
    y = TOP + rows * (row_h + 2) + 14
    left = len(pages.starts) - drawn
    if left > 0:
        parts.append(text(PAD, y, t("pages.more", lang, n=grouped(left), cap=max_runs), 10, cls="bv-muted"))
        y += 16
    x = PAD
    for state in PAGE_STATES:   # the legend: a swatch and the count of each state
        words = f"{names[state]} {grouped(counts[state])}"
        parts.append(f'<rect x="{x:g}" y="{y - 10:g}" width="12" height="12" fill="{STYLE[state].fill}" class="bv-line"/>'
                     + text(x + 16, y, words, 11))
        x += 16 + text_width(words, 11) + 14
    width = max(PAD * 2 + per_row * page_w, text_width(title, 12) + 2 * PAD, x)
    head = (text(PAD, 18, title, 12, bold=True)
            + text(PAD, 34, t("pages.note", lang, n=grouped(per_row)), 10, cls="bv-muted"))
    attrs = f' data-num-pages="{pages.num_pages}" data-pages-per-row="{per_row}" data-runs="{len(pages.starts)}"'
    return svg_document(width, y + 8, head + "".join(parts), view="pages", step=step, label=title, attrs=attrs)
