"""The class page's pictures: the views' own (blockviz/views/), drawn at the projector's layout
(views/layout.py: PROJECTOR), legible from the back of a room at 1920×1080: a pool of big cells
(every text >= 18 px, the whole label on hover); beside it the hash chain of the request admitted
last and this step's events; under them that request's block mapping, its tokens the screen wide.
Under policy "sglang" the hash chain means nothing (a page is found by the tokens on its path), so
SGLang's radix tree at the step takes its place (views/render_radix.py).

The pool is a PoolPicture, so the page follows it with the views' patches (views/pool_patch.py),
in as many columns as show it largest beside the panels. A pool too large for legible cells is the
notebook's picture, scaled to fit.
"""
from math import ceil

from blockviz.demo.hits import AdmissionHit
from blockviz.recording.events import CacheProbe, Event
from blockviz.recording.snapshot import Snapshot
from blockviz.states import BlockState
from blockviz.views.layout import PROJECTOR
from blockviz.views.render_chain import render_chain
from blockviz.views.render_events import render_events
from blockviz.views.render_mapping import render_mapping
from blockviz.views.render_pool import PoolPicture, pool_picture
from blockviz.views.render_radix import render_radix

MAX_BLOCKS = 96            # above: the notebook's compact picture, scaled to the screen
POOL_AREA = (1300, 830)    # px of a 1920×1080 screen left for the pool beside the panels
WIDE = 1880                # the screen's whole width less the page's margins: the mapping's, under the pool
QUIET = ("kv_write", "step_time")  # events the class page leaves out: no block changes in them


def pool_size(num_blocks: int, ncols: int) -> tuple[float, float]:
    """The projector pool's picture in ncols columns, width and height (as pool_picture draws it)."""
    layout = PROJECTOR
    cell_w, cell_h = layout.cell
    rows, legend_rows = ceil(num_blocks / ncols), ceil(len(BlockState) / layout.legend_columns)
    top = layout.pad + layout.title + 10
    legend = 6 + legend_rows * (layout.line + 8)
    return 2 * layout.pad + ncols * (cell_w + layout.gap), top + rows * (cell_h + layout.gap) + legend + layout.pad


def columns_for(num_blocks: int, area: tuple[int, int] = POOL_AREA) -> int:
    """The number of columns that shows the pool largest in `area`."""
    def scale(ncols):
        width, height = pool_size(num_blocks, ncols)
        return min(area[0] / width, area[1] / height)
    return max(range(1, min(num_blocks, 16) + 1), key=scale)


def projector_pool(snapshot: Snapshot, events=(), *, lang: str = "en", decode=None,
                   kept: dict | None = None) -> PoolPicture:
    """`kept`: pool_picture's cache of cells, kept by the caller from one step to the next."""
    if snapshot.num_blocks > MAX_BLOCKS:
        return pool_picture(snapshot, events, lang=lang, decode=decode, kept=kept)
    return pool_picture(snapshot, events, lang=lang, decode=decode, columns=columns_for(snapshot.num_blocks),
                        kept=kept, layout=PROJECTOR)


def events_svg(events: list[Event], labels: dict[int, str], step: int, lang: str, decode=None) -> str:
    return render_events([event for event in events if event.kind not in QUIET], labels, step=step, lang=lang,
                         decode=decode, layout=PROJECTOR)


def chain_svg(snapshot: Snapshot, seq_id: int, hit: AdmissionHit, lang: str, decode=None) -> str:
    """The hash chain can_allocate walked when the request was admitted (its latest admission)."""
    probes = [CacheProbe(seq_id, index, h, outcome, block_id) for index, outcome, h, block_id in hit.probes]
    seq = snapshot.seqs[seq_id]
    # the tokens it was probed with: its prompt at a first admission, else (after a preemption) its tokens now
    tokens = seq.token_ids[:seq.num_prompt_tokens] if hit.admissions == 1 else None
    return render_chain(snapshot, seq_id, probes, lang=lang, decode=decode, token_ids=tokens, probe_step=hit.step,
                        layout=PROJECTOR)


def mapping_svg(snapshot: Snapshot, seq_id: int, events: list[Event], lang: str, decode=None) -> str:
    return render_mapping(snapshot, seq_id, events, lang=lang, decode=decode, max_width=WIDE, layout=PROJECTOR)


def radix_svg(tree, step: int, lang: str, decode=None) -> str:
    """SGLang's radix tree at a step (policy "sglang": Snapshot.tree, a RecordedTree, or a live RadixCache)."""
    return render_radix(tree, lang=lang, decode=decode, step=step, layout=PROJECTOR)
