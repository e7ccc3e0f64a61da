"""Each design's cache after one request of a designs_after.Comparison, side by side: nano-vllm's pool
(the pool view's renderer, at the step the request finished) next to SGLang's tree (render_radix)
and its token pool (render_pages), with the request's own blocks, nodes and pages marked:

- "hit": its prompt tokens the cache served; "recomputed": its prompt tokens prefilled;
  "generated": only tokens it generated;
- "differs" too where the two designs part: the prompt tokens one design hit and the other
  recomputed (Comparison.differs), named in the summary above the pictures with their text.

render_radix draws at most max_nodes rows of a large tree: it is given the request's nodes as its
focus, so they are drawn with their path from the root wherever they are, and the rest folds into
rows that say how many nodes they hide.

Marks are data-mark attributes (space-separated words: [data-mark~="differs"]) on the cells, tree
rows and page outlines, drawn by the designs view's stylesheet (views/js/designs.css), so the
pictures are the renderers' own with attributes added, and a page or test reads the marks.
"""
import re
from dataclasses import dataclass

from blockviz.designs import DESIGNS
from blockviz.designs_after import Comparison
from blockviz.i18n import t
from blockviz.markup import esc
from blockviz.views.render_pages import render_pages
from blockviz.views.render_pool import Cell, PoolPicture, pool_picture
from blockviz.views.render_radix import LABEL_COLUMNS, MAX_NODES, render_radix
from blockviz.views.svg import visible

MARKS = ("hit", "recomputed", "generated", "differs")


def mark(first: int, end: int, hit: int, prompt: int, differs: tuple[int, int]) -> str:
    """The mark of tokens [first, end) of a request that hit `hit` prompt tokens."""
    word = "hit" if end <= hit else "recomputed" if first < prompt else "generated"
    lo, hi = differs
    return f"{word} differs" if first < hi and lo < end else word


def block_marks(blocks: tuple[int, ...], block_size: int, hit: int, prompt: int,
                differs: tuple[int, int]) -> dict[int, str]:
    """block (or page) id -> mark, for a block table: entry k holds tokens [k B, (k + 1) B)."""
    return {block: mark(k * block_size, (k + 1) * block_size, hit, prompt, differs) for k, block in enumerate(blocks)}


def node_marks(path: tuple[tuple[int, int, int], ...], hit: int, prompt: int,
               differs: tuple[int, int]) -> dict[int, str]:
    """tree node id -> mark, for designs_after.tree_path's (node id, first token, end)."""
    return {node: mark(first, end, hit, prompt, differs) for node, first, end in path}


def marked_pool(picture: PoolPicture, marks: dict[int, str]) -> PoolPicture:
    """The picture with data-mark on the cells of marked blocks (a folded run holds only idle
    blocks the step did not touch, so a request's blocks, freed at the step it finished, are cells)."""
    cells = tuple(Cell(c.key, {**c.attrs, "data-mark": marks[c.key]}, c.body)
                  if c.key in marks and "data-last-block-id" not in c.attrs else c for c in picture.cells)
    return PoolPicture(picture.root, picture.head, cells, picture.legend, picture.touched)


def marked_tree(svg: str, marks: dict[int, str]) -> str:
    """render_radix's SVG with data-mark on the rows of marked nodes (each row's data-node)."""
    return re.sub(r'data-node="(\d+)"', lambda m: m.group(0) + (f' data-mark="{marks[int(m.group(1))]}"'
                                                                 if int(m.group(1)) in marks else ""), svg)


@dataclass(frozen=True)
class AfterPicture:
    summary: str        # HTML: what each design hit, recomputed and evicted, and where they part
    pool: PoolPicture   # nano-vllm's
    tree: str           # SVG: SGLang's radix tree
    pages: str          # SVG: SGLang's token pool

    def html(self) -> str:
        """All of it in one page fragment, the designs side by side."""
        return (f'<div class="bv-designs-after">{self.summary}<div class="bv-designs-sides">'
                f'<div class="bv-designs-side" data-design="nano-vllm">{self.pool.svg()}</div>'
                f'<div class="bv-designs-side" data-design="sglang">{self.tree}{self.pages}</div></div></div>')


def render_summary(comparison: Comparison, i: int, lang: str = "en") -> str:
    served = {d: comparison.served[d][i] for d in DESIGNS}
    lo, hi = comparison.differs(i)
    rows = "".join(f'<li data-design="{esc(d)}">{esc(t("after.design", lang, design=d, hit=s.hit, recompute=s.recompute, evict=s.evict))}</li>'
                   for d, s in served.items())
    if lo == hi:
        parts = t("after.same", lang, n=lo)
    else:
        more = max(DESIGNS, key=lambda d: served[d].hit)
        less = next(d for d in DESIGNS if d != more)
        words = comparison.nano.tokenizer.decode(comparison.prompts[i][lo:hi])
        parts = t("after.differs", lang, lo=lo, last=hi - 1, text=visible(words), more=more, less=less)
    head = t("after.request", lang, label=comparison.labels[i], n=served[DESIGNS[0]].prompt)
    key = "".join(f'<span class="bv-mark-key" data-mark="{m}">{esc(t(f"after.mark.{m}", lang))}</span>' for m in MARKS)
    return (f'<div class="bv-designs-summary" data-request="{i}" data-lo="{lo}" data-hi="{hi}">'
            f'<p class="bv-designs-head">{esc(head)}</p><ul>{rows}</ul>'
            f'<p class="bv-designs-parts" data-differs="{str(lo != hi).lower()}">{esc(parts)}</p>'
            f'<p class="bv-designs-key">{key}</p></div>')


def render_after(comparison: Comparison, i: int, *, lang: str = "en", kept: dict | None = None,
                 columns: int | None = None, max_nodes: int = MAX_NODES, labels: dict | None = None) -> AfterPicture:
    """Request i's pictures. kept, columns: pool_picture's (a widget keeps the cells it drew);
    labels: render_radix's (a widget keeps the edge labels it drew, for this comparison)."""
    B, differs = comparison.block_size, comparison.differs(i)
    nano, sglang = comparison.served["nano-vllm"][i], comparison.served["sglang"][i]
    sim, step = comparison.nano, comparison.nano_steps[i]
    pool = marked_pool(pool_picture(sim.snapshot(step), sim.events(step), lang=lang, decode=sim.decode, kept=kept,
                                    columns=columns),
                       block_marks(nano.blocks, B, nano.hit, nano.prompt, differs))
    after = comparison.sglang[i]
    decode = sim.tokenizer.decode
    # an edge's label shows its first LABEL_COLUMNS columns: decoding only those keeps a long edge cheap
    nodes = node_marks(after.path, sglang.hit, sglang.prompt, differs)
    tree = marked_tree(render_radix(after.tree, lang=lang, max_nodes=max_nodes, step=i, focus=nodes, labels=labels,
                                    decode=lambda ids: decode(list(ids[:LABEL_COLUMNS + 1]))), nodes)
    pages = render_pages(after.pages, block_marks(sglang.blocks, B, sglang.hit, sglang.prompt, differs),
                         lang=lang, step=i)
    return AfterPicture(render_summary(comparison, i, lang), pool, tree, pages)
