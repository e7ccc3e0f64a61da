"""The traffic view on small traces made here: the hash-id tree with its runs merged and what is
folded or capped said on the view, the charts' bars and points against counts done by hand."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blockviz import traffic
from blockviz.traffic.trace import Trace
from blockviz.views import show
from blockviz.views.render_traffic import (prefix_picture, render_arrivals, render_hit_rate, render_prefix_tree,
                                           render_prompt_lengths, render_traffic)
from tests.views.svgtools import parse, texts, with_attr


def make_trace(prompts: list[list[int]], seconds: list[float] | None = None, name: str = "t") -> Trace:
    seconds = seconds if seconds is not None else [float(i) for i in range(len(prompts))]
    offsets = np.cumsum([0] + [len(p) for p in prompts])
    return Trace(name, np.array([s * 1000 for s in seconds]), np.array([512 * len(p) for p in prompts]),
                 np.array([4] * len(prompts)), offsets, np.array([h for p in prompts for h in p], dtype=np.int64))


TREE = [[1, 2, 3], [1, 2, 4], [1, 2, 3, 5], [6]]


def cells(svg: str) -> dict[str, dict[str, str]]:
    return {el.get("data-hash"): el.attrib for el in with_attr(parse(svg), "data-hash")}


def test_the_tree_merges_runs_shared_by_the_same_requests_and_says_what_it_folds():
    svg = render_prefix_tree(make_trace(TREE))
    # 1 and 2 are in three requests, 3 in two; 4, 5 and 6 in one each
    drawn = cells(svg)
    assert set(drawn) == {"#1…#2", "#3"}
    assert drawn["#1…#2"]["data-depth"] == "0" and drawn["#3"]["data-depth"] == "1"
    assert drawn["#3"]["data-stored-at"] == "0"   # first used by request 0
    words = " ".join(texts(parse(svg)))
    assert "3 ids used by one request only" in words and "0 shared ids" in words
    assert "×3" in words and "×2" in words


def test_the_cap_keeps_the_most_shared_and_counts_the_rest():
    svg = render_prefix_tree(make_trace(TREE), max_cells=1)
    assert set(cells(svg)) == {"#1…#2"}
    assert "1 shared ids less shared" in " ".join(texts(parse(svg)))


def test_nothing_shared_draws_an_empty_tree_in_both_languages():
    for lang, empty in (("en", "no hash id is shared by two requests"), ("zh", "没有被两个请求共享的 hash id")):
        svg = render_prefix_tree(make_trace([[1], [2]]), lang=lang)
        assert cells(svg) == {} and empty in texts(parse(svg))


def test_a_trace_name_is_escaped():
    svg = render_prefix_tree(make_trace(TREE, name='<b>&"x'))
    assert any('<b>&"x' in line for line in texts(parse(svg)))   # parsed back as text, not markup
    assert "<b>" not in svg


def test_arrival_bars_count_the_requests_of_each_bin():
    seconds = [0, 1, 9, 10, 25, 29.9]
    svg = render_arrivals(make_trace([[i] for i in range(6)], seconds), bin_s=10)
    bars = [(float(el.get("data-x")), float(el.get("data-y"))) for el in with_attr(parse(svg), "data-y")]
    assert bars == [(0, 3), (10, 1), (20, 2)]


def test_prompt_length_bars_hold_every_request():
    trace = make_trace([[1], [1, 2], [1, 2, 3], [4] * 1 + [5] * 9])
    svg = render_prompt_lengths(trace, bins=5)
    heights = [float(el.get("data-y")) for el in with_attr(parse(svg), "data-y")]
    assert sum(heights) == 4 and len(heights) == 5
    assert heights == [2, 1, 0, 0, 1]   # fifths of 0..5121 tokens: 512 and 1024, 1536, -, -, 5120


@pytest.fixture(scope="module")
def run():
    prompts = [[1, 2, 3], [1, 2, 3, 4], [7, 8], [1, 2, 3, 4, 5], [7, 8, 9]]
    return traffic.replay(make_trace(prompts, [0, 1, 2, 61, 62]), pool_tokens=4096, block_size=16,
                          tokens_per_id=32, record=True)


def test_hit_rate_points_are_each_minutes_cached_share(run):
    svg = render_hit_rate(run, bin_s=60)
    points = [(float(el.get("data-x")), float(el.get("data-y"))) for el in with_attr(parse(svg), "data-y")]
    cached, prompt = run.cached_tokens.tolist(), run.prompt_tokens.tolist()
    expected = [(0, 100 * sum(cached[:3]) / sum(prompt[:3])), (60, 100 * sum(cached[3:]) / sum(prompt[3:]))]
    assert [x for x, _ in points] == [0, 60]
    assert [y for _, y in points] == pytest.approx([y for _, y in expected], rel=1e-5)
    assert 0 < points[1][1] < 100   # the second minute hits what the first stored


def test_show_gives_the_traffic_view_and_the_dashboard_over_the_recording(run):
    html = show(run, "traffic")._repr_html_()
    assert html.count("<svg") == 4 and 'data-view="traffic-hits"' in html and 'data-view="vllm-forest"' in html
    assert "命中率" in render_traffic(run, lang="zh")
    assert show(run).timeline is run.engine
    unrecorded = traffic.replay(run.trace, pool_tokens=4096, block_size=16, tokens_per_id=32)
    with pytest.raises(ValueError, match="record=True"):
        show(unrecorded)
    with pytest.raises(ValueError, match="traffic view draws a blockviz.traffic replay"):
        show(run.engine, "traffic")


@st.composite
def conversations(draw):
    """Prompts that are paths from the root of a random tree of ids: ids name whole prefixes."""
    parents = draw(st.lists(st.integers(0, 1_000), min_size=1, max_size=30))
    parent = {0: None} | {k + 1: p % (k + 1) for k, p in enumerate(parents)}   # node k+1 under an earlier node
    def path(node):
        out = []
        while node is not None:
            out.append(node)
            node = parent[node]
        return out[::-1]
    return [path(n) for n in draw(st.lists(st.sampled_from(sorted(parent)), min_size=1, max_size=25))]


@settings(max_examples=60, deadline=None)
@given(conversations(), st.integers(1, 12))
def test_every_drawn_cell_hangs_under_its_drawn_parent_and_nothing_is_lost(prompts, max_cells):
    picture, single, capped = prefix_picture(make_trace(prompts), max_cells)
    uses = {}
    for p in prompts:
        for h in set(p):
            uses[h] = uses.get(h, 0) + 1
    shared = [h for h, n in uses.items() if n > 1]
    drawn = [h for r in picture.blocks for h in r.token_ids]
    assert len(picture.blocks) <= max_cells
    assert single == sum(n == 1 for n in uses.values()) and len(drawn) + capped == len(shared)
    assert len(set(drawn)) == len(drawn) and all(uses[h] > 1 for h in drawn)
    names = {r.hash for r in picture.blocks}
    for r in picture.blocks:
        assert r.parent is None or r.parent in names   # never an orphan: the drawn set is prefix-closed
        assert all(uses[h] == r.copies for h in r.token_ids)   # a run: ids shared by as many requests
        first = prompts[r.stored_at]
        assert first[first.index(r.token_ids[0]):][:len(r.token_ids)] == list(r.token_ids)   # consecutive ids


def test_the_tree_scrolls_in_a_frame_of_its_own(run):
    from blockviz.views.render_traffic import TREE_HEIGHT_PX
    html = render_traffic(run)
    frame = html[html.index('<div class="bv-traffic-tree"'):]
    assert frame.startswith(f'<div class="bv-traffic-tree" style="max-height:{TREE_HEIGHT_PX}px;overflow:auto">')
    assert 'data-view="vllm-forest"' in frame   # the tree, and only the tree, is inside it
    assert 'data-view="traffic-hits"' not in frame
