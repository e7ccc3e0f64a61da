"""The capacity planner's view: a trace's one-pass curve (blockviz.traffic.curve) and one memory
budget split between a GPU pool and a CPU pool, in real tokens and in GiB for a model.

render_capacity is a pure function of the curve and a Setting: the curve in SVG (pool size on a
log axis, tokens and GiB; the hit rate), the GPU pool's point on it and where the two tiers reach,
and a table: each tier's hit rate (Curve.tiers: vLLM's write-through CPU offloading, or a victim
cache), its GiB, the bytes a second loaded back, and what vLLM's block rules gain over nano-vllm's
at the nearest pool where both were replayed (Measured: faithful replays, which the curve cannot
tell apart; the curve models neither policy's free-queue order). capacity_widget.py is the thin
widget around it (a slider over the budget, log scale, and one over the split).
"""
import math
from dataclasses import dataclass

import numpy as np

from blockviz.i18n import t
from blockviz.markup import esc
from blockviz.traffic.curve import Curve
from blockviz.traffic.lengths import HASH_BLOCK
from blockviz.traffic.units import Model
from blockviz.views.svg import svg_document, text
from blockviz.views.theme import OKABE_ITO

CHART_W, CHART_H, MARGIN_L, MARGIN_T, MARGIN_B, MARGIN_R = 520, 180, 52, 30, 48, 16
SAMPLES = 240   # x positions the step curve is drawn at (it has one step a hit block)


@dataclass(frozen=True)
class Setting:
    """A memory budget of total_tokens real tokens, gpu_share of it on the GPU, the rest on the CPU."""
    total_tokens: int
    gpu_share: float = 1.0
    write_through: bool = True   # vLLM's CPU offloading; False: a victim cache

    def __post_init__(self):
        if not (isinstance(self.total_tokens, (int, np.integer)) and self.total_tokens >= 0):
            raise ValueError(f"total_tokens must be a whole number >= 0, got {self.total_tokens!r}")
        if not 0 <= self.gpu_share <= 1:
            raise ValueError(f"gpu_share must be in 0..1, got {self.gpu_share!r}")

    @property
    def gpu_tokens(self) -> int:
        return int(round(self.total_tokens * self.gpu_share))

    @property
    def cpu_tokens(self) -> int:
        return int(self.total_tokens) - self.gpu_tokens


@dataclass(frozen=True)
class Measured:
    """Faithful replays of both policies at one pool (real tokens), on the trace they replayed."""
    trace: str
    pool_tokens: int
    nano_vllm: float
    vllm: float

    @property
    def gain(self) -> float:
        return self.vllm - self.nano_vllm


def measured(replays) -> list[Measured]:
    """Measured points from blockviz.traffic replays: one per (trace, pool) replayed with both
    policies (a replay's pool_tokens are scaled tokens; here they are made real)."""
    by: dict[tuple[str, int], dict[str, float]] = {}
    for r in replays:
        real = int(r.pool_tokens) * HASH_BLOCK // r.tokens_per_id
        by.setdefault((r.trace.name, real), {})[r.policy] = r.hit_rate
    return sorted((Measured(name, pool, rates["nano-vllm"], rates["vllm"])
                   for (name, pool), rates in by.items() if {"nano-vllm", "vllm"} <= set(rates)),
                  key=lambda m: (m.trace, m.pool_tokens))


def nearest(points: list[Measured], pool_tokens: int) -> Measured | None:
    """The measured pool nearest pool_tokens on a log scale."""
    if not points:
        return None
    return min(points, key=lambda m: abs(math.log(max(m.pool_tokens, 1)) - math.log(max(pool_tokens, 1))))


def axis_range(curve: Curve) -> tuple[int, int]:
    """Whole decades of real tokens from one block to past the pool that reaches the maximum."""
    one_block = max(int(curve.pool_tokens(1)), 1)
    full = curve.pool_for(curve.max_hit_rate) or one_block
    return 10 ** math.floor(math.log10(one_block)), 10 ** math.ceil(math.log10(max(full, one_block) * 2))


def gib_text(tokens: float, model: Model | None) -> str:
    if model is None:
        return ""
    gib = model.gib(tokens)
    return f"{gib:,.1f} GiB" if gib >= 0.1 or gib == 0 else f"{gib * 1024:,.1f} MiB"


def pct(rate: float) -> str:
    return f"{rate * 100:.1f}%"


def render_chart(curve: Curve, setting: Setting, model: Model | None, lang: str) -> str:
    lo, hi = axis_range(curve)
    x0, y0 = MARGIN_L, MARGIN_T + CHART_H
    top = 1.0 if curve.max_hit_rate > 0.5 else 0.5
    px = lambda tokens: x0 + (math.log10(max(tokens, lo)) - math.log10(lo)) / math.log10(hi / lo) * CHART_W
    py = lambda rate: y0 - rate / top * CHART_H
    width, height = MARGIN_L + CHART_W + MARGIN_R, MARGIN_T + CHART_H + MARGIN_B
    title = t("capacity.chart", lang, name=curve.trace.name, B=curve.block_size)
    parts = [text(8, 16, title, 12, bold=True),
             f'<line x1="{x0}" y1="{y0}" x2="{x0 + CHART_W}" y2="{y0}" class="bv-line" stroke-width="1"/>'
             f'<line x1="{x0}" y1="{MARGIN_T}" x2="{x0}" y2="{y0}" class="bv-line" stroke-width="1"/>']
    for rate in (0, top / 2, top):
        parts.append(text(x0 - 4, py(rate) + 4, f"{rate:.0%}", 9, anchor="end", cls="bv-muted"))
    for k in range(round(math.log10(lo)), round(math.log10(hi)) + 1):
        x = px(10 ** k)
        parts.append(f'<line x1="{x:.1f}" y1="{y0}" x2="{x:.1f}" y2="{y0 + 4}" class="bv-line" stroke-width="1"/>')
        parts.append(text(x, y0 + 14, f"1e{k}", 9, anchor="middle", cls="bv-muted"))
        if model is not None:
            parts.append(text(x, y0 + 25, gib_text(10 ** k, model), 8, anchor="middle", cls="bv-muted"))
    axis = t("capacity.x_axis", lang) + (t("capacity.x_axis_gib", lang, model=model.name) if model else "")
    parts.append(text(x0 + CHART_W / 2, y0 + 40, axis, 10, anchor="middle", cls="bv-muted"))
    xs = np.logspace(math.log10(lo), math.log10(hi), SAMPLES)
    ys = [curve.hit_rate(x) for x in xs]
    path = " ".join(f"{'M' if k == 0 else 'L'}{px(x):.1f} {py(y):.1f}" for k, (x, y) in enumerate(zip(xs, ys)))
    parts.append(f'<path d="{path}" fill="none" stroke="{OKABE_ITO["blue"]}" stroke-width="1.8" data-curve=""/>')
    best = py(curve.max_hit_rate)
    parts.append(f'<line x1="{x0}" y1="{best:.1f}" x2="{x0 + CHART_W}" y2="{best:.1f}" stroke="#777" '
                 f'stroke-dasharray="4 3" data-max="{curve.max_hit_rate:.6f}"/>')
    parts.append(text(x0 + 4, best - 4, t("capacity.max", lang, rate=pct(curve.max_hit_rate)), 9, cls="bv-muted"))
    tiers = curve.tiers(setting.gpu_tokens, setting.cpu_tokens, write_through=setting.write_through)
    if setting.cpu_tokens:   # where both tiers together reach on the curve
        reach = max(setting.gpu_tokens, setting.cpu_tokens) if setting.write_through else setting.total_tokens
        parts.append(f'<circle cx="{px(reach):.1f}" cy="{py(tiers.hit_rate):.1f}" r="5" fill="none" '
                     f'stroke="{OKABE_ITO["orange"]}" stroke-width="2" data-point="tiers" data-x="{reach}" '
                     f'data-y="{tiers.hit_rate:.6f}"/>')
    parts.append(f'<circle cx="{px(setting.gpu_tokens):.1f}" cy="{py(tiers.gpu_hit_rate):.1f}" r="5" '
                 f'fill="{OKABE_ITO["vermillion"]}" data-point="gpu" data-x="{setting.gpu_tokens}" '
                 f'data-y="{tiers.gpu_hit_rate:.6f}"/>')
    return svg_document(width, height, "".join(parts), view="capacity", step=0, label=title)


def render_capacity(curve: Curve, setting: Setting, model: Model | None = None, measured: list[Measured] = (),
                    lang: str = "en") -> str:
    """The view (HTML around one SVG) of `curve` at `setting`; GiB for `model` when given."""
    bpt = model.kv_bytes_per_token if model is not None else None
    tiers = curve.tiers(setting.gpu_tokens, setting.cpu_tokens, bpt, write_through=setting.write_through)
    mode = t("capacity.write_through" if setting.write_through else "capacity.victim", lang)
    rows = [(t("capacity.gpu", lang), f"{setting.gpu_tokens:,}", gib_text(setting.gpu_tokens, model),
             pct(tiers.gpu_hit_rate), "gpu"),
            (t("capacity.cpu", lang, mode=mode), f"{setting.cpu_tokens:,}", gib_text(setting.cpu_tokens, model),
             pct(tiers.cpu_hit_rate), "cpu"),
            (t("capacity.both", lang), f"{setting.total_tokens:,}", gib_text(setting.total_tokens, model),
             pct(tiers.hit_rate), "both")]
    head = "".join(f"<th>{esc(t(k, lang))}</th>" for k in ("capacity.tier", "capacity.tokens", "capacity.gib",
                                                              "capacity.hit_rate"))
    body = "".join(f'<tr data-tier="{key}"><td>{esc(name)}</td><td>{esc(tokens)}</td><td>{esc(gib)}</td>'
                   f"<td>{esc(rate)}</td></tr>" for name, tokens, gib, rate, key in rows)
    share = tiers.hit_rate / curve.max_hit_rate if curve.max_hit_rate else 0.0
    notes = [t("capacity.of_max", lang, share=f"{share:.0%}", rate=pct(curve.max_hit_rate))]
    if setting.cpu_tokens and tiers.loaded_bytes_per_s is not None:
        notes.append(t("capacity.loaded", lang, tokens=f"{tiers.loaded_tokens_per_s:,.0f}",
                       gbs=f"{tiers.loaded_bytes_per_s / 1e9:,.2f}"))
    elif setting.cpu_tokens:
        notes.append(t("capacity.loaded_tokens", lang, tokens=f"{tiers.loaded_tokens_per_s:,.0f}"))
    if setting.write_through and 0 < setting.cpu_tokens <= setting.gpu_tokens:
        notes.append(t("capacity.cpu_inside", lang))
    if model is not None:
        notes.append(t("capacity.model", lang, model=model.name, bytes=f"{model.kv_bytes_per_token:,}"))
    near = nearest(list(measured), setting.gpu_tokens)
    if near is not None:
        notes.append(t("capacity.policy", lang, gain=f"{near.gain * 100:+.2f}", nano=pct(near.nano_vllm),
                       vllm=pct(near.vllm), pool=f"{near.pool_tokens:,}",
                       gib=gib_text(near.pool_tokens, model) or t("capacity.no_model", lang),
                       trace=near.trace))
    else:
        notes.append(t("capacity.no_policy", lang))
    items = "".join(f"<li>{esc(n)}</li>" for n in notes)
    gain = f' data-policy-gain="{near.gain:.6f}" data-policy-pool="{near.pool_tokens}"' if near else ""
    return (f'<div class="bv-capacity" data-view="capacity" lang="{esc(lang)}" data-gpu-rate="{tiers.gpu_hit_rate:.6f}" '
            f'data-cpu-rate="{tiers.cpu_hit_rate:.6f}" data-gpu-tokens="{setting.gpu_tokens}" '
            f'data-cpu-tokens="{setting.cpu_tokens}"{gain}>'
            f'<div class="bv-capacity-chart">{render_chart(curve, setting, model, lang)}</div>'
            f'<table class="bv-capacity-tiers"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
            f'<ul class="bv-capacity-notes">{items}</ul></div>')

