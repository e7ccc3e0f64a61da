"""The KV pool of one layer and head as a heat grid: a row per physical block, a cell per slot,
and inside each cell the head_dim values of the K (or V) vector stored there."""
from typing import Iterable, Sequence

import numpy as np

from blockviz.i18n import t
from blockviz.views.svg import esc, svg_document, text, text_width
from blockviz.views.theme import HEAT_NEGATIVE, HEAT_POSITIVE, HEAT_ZERO

MAX_BLOCKS = 64   # rows shown at most; pass `blocks` to choose which
CELL_W = 96       # width of one slot cell, split among head_dim stripes
CELL_H = 16


def _rgb(colour: str) -> np.ndarray:
    return np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)], dtype=float)


def heat_colours(values: np.ndarray, vmax: float) -> np.ndarray:
    """'#rrggbb' per value on a diverging scale: -vmax blue, 0 near white, +vmax vermillion."""
    x = np.clip(values / vmax, -1, 1)[..., None] if vmax > 0 else np.zeros(values.shape + (1,))
    zero, pos, neg = _rgb(HEAT_ZERO), _rgb(HEAT_POSITIVE), _rgb(HEAT_NEGATIVE)
    rgb = np.where(x >= 0, zero + x * (pos - zero), zero - x * (neg - zero)).round().astype(int)
    packed = (rgb[..., 0] << 16) | (rgb[..., 1] << 8) | rgb[..., 2]
    return np.vectorize(lambda v: f"#{v:06x}", otypes=[object])(packed)


def render_kv(values: np.ndarray, written_slots: Iterable[int] = (), *, blocks: Sequence[int] | None = None,
              step: int = 0, title: str = "", lang: str = "en", vmax: float | None = None) -> str:
    """values: [num_blocks, block_size, head_dim] (one layer, one head, K or V); written_slots: the
    slots this step wrote (slot = block * block_size + offset), outlined."""
    values = np.asarray(values, dtype=float)
    if values.ndim != 3:
        raise ValueError(f"values must be [num_blocks, block_size, head_dim], got shape {values.shape}")
    num_blocks, B, D = values.shape
    rows = list(range(min(num_blocks, MAX_BLOCKS)) if blocks is None else blocks)[:MAX_BLOCKS]
    return render_kv_rows(values[rows] if rows else np.zeros((0, B, D)), rows, num_blocks, written_slots, step=step,
                          title=title, lang=lang, vmax=vmax)


def render_kv_rows(shown: np.ndarray, rows: Sequence[int], num_blocks: int, written_slots: Iterable[int] = (), *,
                   step: int = 0, title: str = "", lang: str = "en", vmax: float | None = None) -> str:
    """The grid of the blocks `rows` of a pool of `num_blocks`; shown: their values,
    [len(rows), block_size, head_dim]. What render_kv draws, without the whole pool at hand."""
    shown = np.asarray(shown, dtype=float)
    _, B, D = shown.shape
    written = set(written_slots)
    scale = float(vmax if vmax is not None else (np.abs(shown).max() if shown.size else 0.0))
    colours = heat_colours(shown, scale)
    stripe = CELL_W / D
    header = t("kv.title", lang, title=title, step=step, B=B, D=D, vmax=f"{scale:.3g}")
    parts = [text(10, 16, header, 12, bold=True)]
    left, top = 52, 40
    for s in range(B):
        parts.append(text(left + s * (CELL_W + 4) + CELL_W / 2, top - 6, t("kv.slot", lang, offset=s), 10,
                          anchor="middle", cls="bv-muted"))
    for r, block_id in enumerate(rows):
        y = top + r * (CELL_H + 3)
        parts.append(text(left - 6, y + 12, f"#{block_id}", 10, anchor="end", cls="bv-muted"))
        for s in range(B):
            x = left + s * (CELL_W + 4)
            slot = block_id * B + s
            label = t("kv.cell", lang, block=block_id, offset=s, slot=slot)
            parts.append(f'<g data-slot="{slot}" data-written="{int(slot in written)}" aria-label="{esc(label)}">')
            parts.extend(f'<rect x="{x + d * stripe:.2f}" y="{y}" width="{stripe + 0.05:.2f}" height="{CELL_H}" '
                         f'fill="{colours[r, s, d]}"/>' for d in range(D))
            if slot in written:
                parts.append(f'<rect x="{x - 1.5}" y="{y - 1.5}" width="{CELL_W + 3}" height="{CELL_H + 3}" '
                             f'fill="none" class="bv-touch" stroke-width="2.5"/>')
            parts.append("</g>")
    bottom = top + len(rows) * (CELL_H + 3) + 6
    legend = t("kv.legend", lang, vmax=f"{scale:.3g}")
    if len(rows) < num_blocks:
        legend += " · " + t("kv.rows", lang, shown=len(rows), total=num_blocks)
    parts.append(text(10, bottom + 12, legend, 11, cls="bv-muted"))
    width = max(left + B * (CELL_W + 4) + 10, text_width(header, 12) + 20, text_width(legend, 11) + 20)
    return svg_document(width, bottom + 22, "".join(parts), view="kv", step=step, label=header)
