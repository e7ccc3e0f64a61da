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
from blockviz.views.render_pool import GLYPH, LEGEND_ROW, default_decode
from blockviz.views.svg import clip, esc, svg_document, text, text_width, visible
from blockviz.views.theme import OUTCOME_STYLES

Decode = Callable[[tuple[int, ...]], str]

BOX_W, BOX_H, ARROW, PER_ROW = 124, 92, 22, 5  # 5 a row: 750 px
OUTCOMES = ("hit_used", "hit_free", "miss", "mismatch", "skipped", "not_probed")


def render_chain(snapshot: Snapshot, seq_id: int, probes: Sequence[CacheProbe], *, lang: str = "en",
                 decode: Decode | None = None, token_ids: Sequence[int] | None = None,
                 probe_step: int | None = None, admitted: bool = True) -> str:
    """`probes`: one can_allocate walk (see RecordingIndex); `token_ids`: the request's tokens when it was
    probed (default: its tokens now; they differ only in the last block, after decoding)."""
    decode = decode or default_decode
    seq = snapshot.seqs[seq_id]
    B = snapshot.block_size
    tokens = tuple(seq.token_ids if token_ids is None else token_ids)
    if probe_step is None:
        when = t("chain.never", lang)
    else:
        when = t("chain.admitted" if admitted else "chain.attempt", lang, step=probe_step)
    title = t("chain.title", lang, label=seq.label, when=when)
    parts = [text(10, 16, title, 12, bold=True)]
    formula = [t("chain.formula", lang), t("chain.formula_why", lang)]
    parts += [text(10, 32 + k * 14, line, 11, cls="bv-muted") for k, line in enumerate(formula)]
    top = 58
    for k, probe in enumerate(probes):
        x = 10 + (k % PER_ROW) * (BOX_W + ARROW)
        y = top + (k // PER_ROW) * (BOX_H + 14)
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
                     f'<rect x="{x}" y="{y}" width="{BOX_W}" height="{BOX_H}" rx="4" fill="{style.fill}" '
                     f'class="bv-line" stroke-width="1.2"{dashed}/>')
        ink = style.text
        parts.append(text(x + 6, y + 15, f"h{probe.index}{where}", 12, bold=True, fill=ink))
        parts.append(text(x + BOX_W - 6, y + 16, style.glyph, GLYPH, anchor="end", fill=ink))
        parts.append(text(x + 6, y + 30, clip(outcome, 19), 10, fill=ink))
        parts.append(text(x + 6, y + 47, clip(f"“{content}”", 18), 11, fill=ink))
        parts.append(text(x + 6, y + 63, f"{short_hash(probe.hash, 12)}", 11, fill=ink))
        parts.append(text(x + 6, y + 80, t("chain.alone", lang, hash=short_hash(alone, 8)), 10, fill=ink))
        parts.append("</g>")
        if k % PER_ROW != PER_ROW - 1 and k + 1 < len(probes):  # parent -> child
            ay = y + BOX_H / 2
            parts.append(f'<line x1="{x + BOX_W + 2}" y1="{ay}" x2="{x + BOX_W + ARROW - 6}" y2="{ay}" '
                         f'class="bv-line" stroke-width="1.5"/>')
            parts.append(f'<path d="M{x + BOX_W + ARROW - 7} {ay - 4} L{x + BOX_W + ARROW - 1} {ay} '
                         f'L{x + BOX_W + ARROW - 7} {ay + 4} Z" class="bv-arrow"/>')
    if not probes:
        parts.append(text(10, top + 14, t("chain.none", lang), 11, cls="bv-muted"))
    rows = max(1, (len(probes) + PER_ROW - 1) // PER_ROW)
    legend_y = top + rows * (BOX_H + 14) + 4
    legend_w = 0.0
    for k, outcome in enumerate(OUTCOMES):
        style = OUTCOME_STYLES[outcome]
        yy = legend_y + k * LEGEND_ROW
        line = f'{t(f"outcome.{outcome}", lang)}: {t(f"outcome.{outcome}.meaning", lang)}'
        parts.append(f'<rect x="10" y="{yy}" width="24" height="18" rx="2" fill="{style.fill}" class="bv-line"/>')
        parts.append(text(22, yy + 14, style.glyph, GLYPH, anchor="middle", fill=style.text))
        parts.append(text(40, yy + 13, line, 11))
        legend_w = max(legend_w, 40 + text_width(line, 11))
    height = legend_y + len(OUTCOMES) * LEGEND_ROW + 8
    width = max(20 + min(len(probes), PER_ROW) * (BOX_W + ARROW), text_width(title, 12) + 20,
                *(text_width(line, 11) + 20 for line in formula), legend_w + 20)
    return svg_document(width, height, "".join(parts), view="chain", step=snapshot.step, label=title,
                        attrs=f' data-seq-id="{seq_id}"')
