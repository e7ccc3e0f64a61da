"""The two designs' table: every number from side_by_side, totals their sums, labels escaped."""
from xml.etree import ElementTree

from blockviz.designs import side_by_side
from blockviz.views.render_designs import render_designs

PROMPTS = ["the cat sat on the mat", "a dog ran far away from here", "the cat sat on the mat"]


def cells(html: str) -> list[list[str]]:
    table = ElementTree.fromstring(html)
    return [[c.text for c in row] for row in table]


def test_rows_hold_each_designs_numbers_and_the_totals_their_sums():
    served = side_by_side(PROMPTS, num_blocks=12, block_size=4)
    rows = cells(render_designs(served))
    assert rows[0][2:] == ["nano-vllm", "sglang"] and rows[1] == ["hit", "recompute", "evicted"] * 2
    for i, row in enumerate(rows[2:-1]):
        assert row[:2] == [str(i + 1), str(len(PROMPTS[i]))]
        assert row[2:] == [str(getattr(served[d][i], c)) for d in served for c in ("hit", "recompute", "evict")]
    assert rows[-1][2:] == [str(sum(getattr(s, c) for s in served[d])) for d in served
                            for c in ("hit", "recompute", "evict")]


def test_labels_are_escaped_and_chinese_headers_used():
    served = side_by_side(PROMPTS[:1], num_blocks=12, block_size=4)
    html = render_designs(served, labels=["<b>&"], lang="zh")
    assert "<b>" not in html and cells(html)[2][0] == "<b>&" and "命中" in html
