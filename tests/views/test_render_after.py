"""Each design's cache after one request: the request's own blocks, tree nodes and pages marked hit,
recomputed or generated as the engines counted them, the span where the designs part marked in
every picture and named in the summary, learner text escaped, and a GPU-sized pool's marked blocks
each in a cell of its own."""
import random
from xml.etree import ElementTree

import pytest

from blockviz.designs import DESIGNS
from blockviz.designs_after import compare
from blockviz.views.render_after import block_marks, render_after

from tests.views.svgtools import parse

PROMPTS = ["the cat sat on the mat", "the cat sat on the hat", "a dog ran far away from here",
           "the cat sat on the mat"]


def parted_prompts(a: str = "a", b: str = "b") -> list[str]:
    """Prompts over two letters sharing prefixes, served in a pool that evicts: the designs part."""
    rng = random.Random(27)
    base = ["".join(rng.choice("ab") for _ in range(rng.randint(6, 14))) for _ in range(2)]
    prompts = [rng.choice(base) + "".join(rng.choice("ab") for _ in range(rng.randint(0, 6))) for _ in range(5)]
    return [p.replace("a", "\0").replace("b", b).replace("\0", a) for p in prompts]


def marked(svg: str, key: str) -> dict[int, str]:
    return {int(el.get(key)): el.get("data-mark") for el in parse(svg).iter() if el.get("data-mark") and el.get(key)}


def tree_spans(comparison, i: int) -> dict[int, tuple[int, int]]:
    return {node: (first, end) for node, first, end in comparison.sglang[i].path}


@pytest.fixture(scope="module")
def plain():
    return compare(PROMPTS, num_blocks=12, block_size=4, labels=["<b>&", "two", "three", "four"])


@pytest.fixture(scope="module")
def parted():
    return compare(parted_prompts(), num_blocks=10, block_size=4)


def test_the_requests_blocks_nodes_and_pages_are_marked_as_the_engines_counted(plain):
    B = 4
    for i in range(len(plain)):
        picture = render_after(plain, i)
        nano, sglang = (plain.served[d][i] for d in DESIGNS)
        pool = marked(picture.pool.svg(), "data-block-id")
        assert pool == block_marks(nano.blocks, B, nano.hit, nano.prompt, plain.differs(i))
        assert [nano.blocks[k] for k in range(len(nano.blocks)) if pool[nano.blocks[k]] == "hit"] == list(nano.blocks[:nano.hit // B])
        nodes = marked(picture.tree, "data-node")
        spans = tree_spans(plain, i)
        assert set(nodes) == set(spans)
        assert max([spans[n][1] for n, m in nodes.items() if m == "hit"], default=0) == sglang.hit
        pages = {}
        for el in parse(picture.pages).iter():
            if el.get("class") == "bv-page-mark":
                pages.update({p: el.get("data-mark") for p in range(int(el.get("data-first")), int(el.get("data-last")) + 1)})
        assert pages == block_marks(sglang.blocks, B, sglang.hit, sglang.prompt, plain.differs(i))


def test_where_the_designs_part_every_picture_marks_the_span_and_the_summary_names_it(parted):
    B, parts = 4, 0
    for i in range(len(parted)):
        lo, hi = parted.differs(i)
        picture = render_after(parted, i)
        summary = ElementTree.fromstring(picture.summary)
        assert (summary.get("data-lo"), summary.get("data-hi")) == (str(lo), str(hi))
        differs = {d: [k for k, b in enumerate(parted.served[d][i].blocks) if lo < (k + 1) * B and k * B < hi]
                   for d in DESIGNS}
        pool = marked(picture.pool.svg(), "data-block-id")
        nano = parted.served["nano-vllm"][i]
        assert [k for k, b in enumerate(nano.blocks) if "differs" in pool[b]] == differs["nano-vllm"]
        nodes, spans = marked(picture.tree, "data-node"), tree_spans(parted, i)
        assert {n for n, m in nodes.items() if "differs" in m} == {n for n, (a, e) in spans.items() if lo < e and a < hi}
        if lo < hi:
            parts += 1
            more = max(DESIGNS, key=lambda d: parted.served[d][i].hit)
            assert all(pool[nano.blocks[k]] == ("hit differs" if more == "nano-vllm" else "recomputed differs")
                       for k in differs["nano-vllm"])
            line = summary.find("p[@class='bv-designs-parts']").text
            text = "".join(chr(c) for c in parted.prompts[i][lo:hi])
            assert f"{lo}–{hi - 1}" in line and f"“{text}”" in line and line.index(more) < line.index("recomputed")
    assert parts > 0


def test_learner_text_is_escaped(plain):
    picture = render_after(plain, 0)
    assert "&lt;b&gt;&amp;" in picture.summary and "<b>" not in picture.summary
    odd = compare(parted_prompts("<", "&"), num_blocks=10, block_size=4)
    i = next(i for i in range(len(odd)) if odd.differs(i)[0] < odd.differs(i)[1])
    summary = render_after(odd, i).summary
    ElementTree.fromstring(summary)   # well-formed: the prompt's < and & escaped
    assert "&lt;" in summary or "&amp;" in summary


def test_a_gpu_sized_pools_marked_blocks_each_have_a_cell():
    comparison = compare(PROMPTS, num_blocks=65536, block_size=4)
    for i in (1, 3):
        picture = render_after(comparison, i)
        blocks = comparison.served["nano-vllm"][i].blocks
        cells = {cell.key: cell for cell in picture.pool.cells}
        assert all(b in cells and "data-last-block-id" not in cells[b].attrs and cells[b].attrs["data-mark"]
                   for b in blocks)
        assert any("data-last-block-id" in cell.attrs for cell in picture.pool.cells)   # the rest folds


def test_chinese(plain):
    assert "命中" in render_after(plain, 1, lang="zh").summary


def test_the_requests_nodes_are_drawn_whatever_the_cap_and_the_rest_folds(plain):
    whole = render_after(plain, 1)
    cut = render_after(plain, 1, max_nodes=1)   # its three nodes drawn, the other branch folded
    path = tree_spans(plain, 1)
    assert len(path) > 1 and set(marked(cut.tree, "data-node")) == set(path) == set(marked(whole.tree, "data-node"))
    hidden = [int(el.get("data-hidden")) for el in parse(cut.tree).iter() if el.get("class") == "bv-radix-fold"]
    drawn = [el for el in parse(cut.tree).iter() if el.get("class") == "bv-radix-node"]
    assert hidden and len(drawn) + sum(hidden) == len([el for el in parse(whole.tree).iter()
                                                         if el.get("class") == "bv-radix-node"])

@pytest.mark.parametrize("prompts, num_blocks", [(PROMPTS, 12), (parted_prompts(), 10)])
def test_what_a_widget_keeps_from_one_request_to_the_next_draws_the_same_pictures(prompts, num_blocks):
    """The pool cells and tree labels kept (kept=, labels=) as a widget keeps them, in an order that
    goes back and forth across splits and evictions, draw what a first drawing draws."""
    comparison = compare(prompts, num_blocks=num_blocks, block_size=4)
    cells, labels = {}, {}
    order = list(range(len(comparison))) + list(reversed(range(len(comparison)))) + [0, len(comparison) - 1, 1]
    for i in order:
        kept, fresh = render_after(comparison, i, kept=cells, labels=labels), render_after(comparison, i)
        assert kept == fresh, f"request {i}"
    assert labels   # rows were kept
