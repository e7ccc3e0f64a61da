"""The prefix hash chain of one request: h0 -> h1 -> ..., each link marked with what can_allocate found.

h_i = xxh64(h_{i-1} as 8 bytes ‖ tokens of block i), so a block's hash names its whole prefix: the
same tokens after a different prefix hash differently (the "tokens alone" line shows the contrast).
"""
from typing import Callable, Sequence

from blockviz.engine.block_manager import BlockManager
from blockviz.i18n import t
from blockviz.text import short_hash
from blockviz.recording.events import CacheProbe
from blockviz.recording.snapshot import Snapshot
from blockviz.views.layout import NOTEBOOK, Layout
from blockviz.views.render_pool import LEGEND_ROW, default_decode
from blockviz.views.svg import CHAR_WIDTH, clip, esc, svg_document, text, text_width, visible
from blockviz.views.theme import OUTCOME_STYLES

Decode = Callable[[tuple[int, ...]], str]

BOX_W, BOX_H, ARROW = 124, 92, 22  # in the notebook's layout: 5 a row, 750 px
OUTCOMES = ("hit_used", "hit_free", "miss", "mismatch", "skipped", "not_probed")


def render_chain(snapshot: Snapshot, seq_id: int, probes: Sequence[CacheProbe], *, lang: str = "en",
                 decode: Decode | None = None, token_ids: Sequence[int] | None = None,
                 probe_step: int | None = None, admitted: bool = True, layout: Layout = NOTEBOOK) -> str:
    """`probes`: one can_allocate walk (see RecordingIndex); `token_ids`: the request's tokens when it was
    probed (default: its tokens now; they differ only in the last block, after decoding). As many
    links a row as the layout's width holds; the lines of text cut to it (the whole line on hover)."""
    decode = decode or default_decode
    px, title_size, size, small = layout.px, layout.title, layout.text, layout.small
    box_w, box_h, arrow, row_gap = px(BOX_W), px(BOX_H), px(ARROW), px(14)
    per_row = max(1, int((layout.width - 2 * px(10)) // (box_w + arrow)))
    fits = int((layout.width - 2 * px(10)) / (CHAR_WIDTH * size))  # columns of a line of text
    inside = box_w - 2 * px(6)  # a link's lines, in px
    seq = snapshot.seqs[seq_id]
    B = snapshot.block_size
    tokens = tuple(seq.token_ids if token_ids is None else token_ids)
    if probe_step is None:
        when = t("chain.never", lang)
    else:
        when = t("chain.admitted" if admitted else "chain.attempt", lang, step=probe_step)
    title = t("chain.title", lang, label=seq.label, when=when)
    parts = [f"<g><title>{esc(title)}</title>" + text(px(10), px(16), clip(title, int(fits * size / title_size)),
                                                       title_size, bold=True) + "</g>"]
    formula = [t("chain.formula", lang), t("chain.formula_why", lang)]
    parts += [f"<g><title>{esc(line)}</title>" + text(px(10), px(32 + k * 14), clip(line, fits), size, cls="bv-muted")
              + "</g>" for k, line in enumerate(formula)]
    top = px(58)
    for k, probe in enumerate(probes):
        x = px(10) + (k % per_row) * (box_w + arrow)
        y = top + (k // per_row) * (box_h + row_gap)
        style = OUTCOME_STYLES[probe.outcome]
        block_tokens = tokens[probe.index * B:(probe.index + 1) * B]
        content = visible(decode(block_tokens))
        alone = BlockManager.compute_hash(list(block_tokens)) if block_tokens else -1
        outcome = t(f"outcome.{probe.outcome}", lang)
        where = f" → #{probe.block_id}" if probe.block_id >= 0 else ""
        label = t("chain.link_label", lang, i=probe.index, hash=short_hash(probe.hash, 16), outcome=outcome,
                  tokens=content) + where
        dashed = ' stroke-dasharray="4 3"' if probe.outcome in ("skipped", "not_probed") else ""
        parts.append(f'<g data-index="{probe.index}" data-outcome="{probe.outcome}" data-hash="{probe.hash}" '
                     f'data-block-id="{probe.block_id}" aria-label="{esc(label)}"><title>{esc(label)}</title>'
                     f'<rect x="{x}" y="{y}" width="{box_w}" height="{box_h}" rx="4" fill="{style.fill}" '
                     f'class="bv-line" stroke-width="1.2"{dashed}/>')
        ink = style.text
        parts.append(text(x + px(6), y + px(15), f"h{probe.index}{where}", title_size, bold=True, fill=ink))
        parts.append(text(x + box_w - px(6), y + px(16), style.glyph, layout.glyph, anchor="end", fill=ink))
        parts.append(text(x + px(6), y + px(30), clip(outcome, int(inside / (CHAR_WIDTH * small))), small, fill=ink))
        parts.append(text(x + px(6), y + px(47), clip(f"“{content}”", int(inside / (CHAR_WIDTH * size))), size, fill=ink))
        parts.append(text(x + px(6), y + px(63), f"{short_hash(probe.hash, 12)}", size, fill=ink))
        parts.append(text(x + px(6), y + px(80), t("chain.alone", lang, hash=short_hash(alone, 8)), small, fill=ink))
        parts.append("</g>")
        if k % per_row != per_row - 1 and k + 1 < len(probes):  # parent -> child
            ay, x0 = y + box_h / 2, x + box_w
            parts.append(f'<line x1="{x0 + 2}" y1="{ay}" x2="{x0 + arrow - 6}" y2="{ay}" '
                         f'class="bv-line" stroke-width="1.5"/>')
            parts.append(f'<path d="M{x0 + arrow - 7} {ay - 4} L{x0 + arrow - 1} {ay} '
                         f'L{x0 + arrow - 7} {ay + 4} Z" class="bv-arrow"/>')
    if not probes:
        parts.append(text(px(10), top + px(14), t("chain.none", lang), size, cls="bv-muted"))
    rows = max(1, (len(probes) + per_row - 1) // per_row)
    legend_y = top + rows * (box_h + row_gap) + px(4)
    legend_w, legend_row, legend_x = 0.0, px(LEGEND_ROW), px(40)
    for k, outcome in enumerate(OUTCOMES):
        style = OUTCOME_STYLES[outcome]
        yy = legend_y + k * legend_row
        line = f'{t(f"outcome.{outcome}", lang)}: {t(f"outcome.{outcome}.meaning", lang)}'
        shown = clip(line, int((layout.width - legend_x - px(20)) / (CHAR_WIDTH * size)))
        parts.append(f'<rect x="{px(10)}" y="{yy}" width="{px(24)}" height="{px(18)}" rx="2" fill="{style.fill}" '
                     f'class="bv-line"/>')
        parts.append(text(px(22), yy + px(14), style.glyph, layout.glyph, anchor="middle", fill=style.text))
        parts.append(f"<g><title>{esc(line)}</title>" + text(legend_x, yy + px(13), shown, size) + "</g>"
                     if shown != line else text(legend_x, yy + px(13), line, size))
        legend_w = max(legend_w, legend_x + text_width(shown, size))
    height = legend_y + len(OUTCOMES) * legend_row + px(8)
    width = max(2 * px(10) + min(len(probes), per_row) * (box_w + arrow),
                *(text_width(clip(line, fits), size) + 2 * px(10) for line in formula), legend_w + px(20),
                text_width(clip(title, int(fits * size / title_size)), title_size) + 2 * px(10))
    return svg_document(width, height, "".join(parts), view="chain", step=snapshot.step, label=title,
                        attrs=f' data-seq-id="{seq_id}"')
