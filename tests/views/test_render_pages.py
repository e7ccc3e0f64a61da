"""SGLang's token pool as bars: every page in exactly one bar of its state, marks as outlines, a cap
on the bars drawn with a note of the rest, and a GPU-sized pool in a few bars."""
import numpy as np
from hypothesis import given, settings, strategies as st

from blockviz.designs_after import PAGE_STATES, page_runs
from blockviz.text import grouped
from blockviz.views.render_pages import MAX_RUNS, mark_runs, pages_per_row, render_pages

from tests.views.svgtools import parse, texts


def runs_of(codes: list[int]):
    return page_runs({state: {p for p, c in enumerate(codes) if c == k} for k, state in enumerate(PAGE_STATES)},
                     len(codes))


def bars(svg: str) -> list[tuple[int, int, str]]:
    return [(int(g.get("data-first")), int(g.get("data-last")), g.get("data-state"))
            for g in parse(svg).iter() if g.get("class") == "bv-page-run"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=1, max_size=300))
def test_every_page_is_in_one_bar_of_its_state(codes):
    svg = render_pages(runs_of(codes))
    covered = []
    for first, last, state in bars(svg):
        covered.extend(range(first, last + 1))
        assert {codes[p] for p in range(first, last + 1)} == {PAGE_STATES.index(state)}
    assert covered == list(range(len(codes)))
    counts = runs_of(codes).counts()
    assert parse(svg).get("aria-label").endswith(f"{counts['free']} free, {counts['used']} used, {counts['cached']} cached")


def test_marks_outline_runs_of_marked_pages():
    marks = {3: "hit", 4: "hit", 5: "recomputed differs", 9: "recomputed differs", 10: "generated"}
    assert mark_runs(marks) == [(3, 4, "hit"), (5, 5, "recomputed differs"), (9, 9, "recomputed differs"),
                                (10, 10, "generated")]
    svg = render_pages(runs_of([0] * 12), marks)
    got = [(g.get("data-first"), g.get("data-last"), g.get("data-mark")) for g in parse(svg).iter()
           if g.get("class") == "bv-page-mark"]
    assert got == [(str(a), str(b), m) for a, b, m in mark_runs(marks)]


def test_a_gpu_sized_pool_draws_its_runs_and_caps_them():
    codes = np.zeros(65536, dtype=int)
    codes[1000:30000] = 2
    codes[30000:30100] = 1
    assert pages_per_row(65536) == 1024 and pages_per_row(12) == 12
    svg = render_pages(runs_of(codes.tolist()))
    assert len(bars(svg)) == 4 and parse(svg).get("data-pages-per-row") == "1024"
    striped = runs_of([k % 2 * 2 for k in range(2 * MAX_RUNS + 10)])
    capped = render_pages(striped)
    assert len(bars(capped)) == MAX_RUNS
    assert any(f"{grouped(len(striped.starts) - MAX_RUNS)} more runs" in line for line in texts(parse(capped)))


def test_chinese():
    assert "已缓存" in render_pages(runs_of([2, 0]), lang="zh")
