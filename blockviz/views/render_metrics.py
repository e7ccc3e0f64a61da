"""Metrics over a timeline as matplotlib figures: blocks per state, prefix-cache hit rate,
preemptions, wasted slots. Rows are computed once per frame (MetricsIndex), figures from rows."""
from dataclasses import dataclass

import numpy as np
from matplotlib import rc_context
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from blockviz.hits import ADMITTED_TOKENS, HitRate, admitted
from blockviz.i18n import t
from blockviz.states import BlockState, count_states
from blockviz.recording.events import Preempted
from blockviz.recording.frame import Frame
from blockviz.recording.snapshot import Snapshot
from blockviz.views.theme import OKABE_ITO, STATE_STYLES, matplotlib_fonts
from blockviz.views.recording_index import tokens_when_probed


@dataclass(frozen=True)
class MetricsRow:
    step: int
    states: tuple[int, ...]   # blocks per state, in BlockState order
    hit_tokens: int           # cumulative: prompt tokens served from the prefix cache at admission
    queried_tokens: int       # cumulative: tokens of every admitted request, at admission
    preemptions: int          # cumulative
    wasted_slots: int         # allocated slots holding no token (page-tail fragmentation)
    allocated_slots: int

    @property
    def hits(self) -> HitRate:
        """Tokens served at every admission so far, over the tokens of every admission."""
        return HitRate(self.hit_tokens, self.queried_tokens, ADMITTED_TOKENS)

    @property
    def hit_rate(self) -> float:
        """hits.value; NaN before any admission (the plot leaves a gap)."""
        return self.hits.value if self.queried_tokens else float("nan")


def slot_usage(snapshot: Snapshot) -> tuple[int, int]:
    """(wasted, allocated) slots: a used block holds as many tokens as its fullest holder puts there."""
    B = snapshot.block_size
    fill: dict[int, int] = {}
    for seq in snapshot.seqs.values():
        for i, block_id in enumerate(seq.block_table):
            fill[block_id] = max(fill.get(block_id, 0), min(B, seq.num_tokens - i * B))
    allocated = len(snapshot.used_block_ids) * B
    return allocated - sum(fill.get(b, 0) for b in snapshot.used_block_ids), allocated


def admission_hits(frames: list[Frame], index: int) -> tuple[int, int]:
    """(hit tokens, queried tokens) of the requests admitted in frames[index] (blockviz.hits.admitted);
    a request's queried tokens are all it had when probed (after a preemption, its output too)."""
    frame = frames[index]
    hits = admitted(frame.events)
    queried = sum(len(tokens_when_probed(frames, seq_id, index)) for seq_id in hits)
    return sum(hits.values()) * frame.snapshot.block_size, queried


class MetricsIndex:

    def __init__(self):
        self.rows: list[MetricsRow] = []

    def update(self, frames: list[Frame]) -> list[MetricsRow]:
        # the last row is redone: frame 0 changes while requests arrive before the first step
        del self.rows[max(len(self.rows) - 1, 0):]
        first = getattr(frames, "first_step", 0)  # a bounded history: rows start with its window
        if self.rows and self.rows[0].step < first:
            self.rows = [row for row in self.rows if row.step >= first]
        for i in range(self.rows[-1].step + 1 if self.rows else first, len(frames)):
            frame, previous = frames[i], self.rows[-1] if self.rows else None
            hit, queried = admission_hits(frames, i) if i > first else (0, 0)
            preempted = sum(isinstance(e, Preempted) for e in frame.events)
            wasted, allocated = slot_usage(frame.snapshot)
            counts = count_states(frame.snapshot)
            self.rows.append(MetricsRow(
                frame.step, tuple(counts[s] for s in BlockState),
                hit + (previous.hit_tokens if previous else 0), queried + (previous.queried_tokens if previous else 0),
                preempted + (previous.preemptions if previous else 0), wasted, allocated))
        return self.rows


def metrics_rows(frames: list[Frame]) -> list[MetricsRow]:
    return MetricsIndex().update(frames)


def render_metrics(rows: list[MetricsRow], *, cursor: int | None = None, lang: str = "en",
                   figsize: tuple[float, float] = (10, 6), fig: Figure | None = None) -> Figure:
    """The four plots, into `fig` (cleared first) or a new figure."""
    if fig is None:
        fig = Figure(figsize=figsize, layout="constrained")
    fig.clear()
    with rc_context({"font.family": matplotlib_fonts()}):
        _plot(fig, rows, cursor, lang)
    return fig


def _plot(fig: Figure, rows: list[MetricsRow], cursor: int | None, lang: str):
    (ax_states, ax_hits), (ax_preempt, ax_waste) = fig.subplots(2, 2, sharex=True)
    steps = np.array([r.step for r in rows])
    counts = np.array([r.states for r in rows]).T if rows else np.zeros((len(BlockState), 0))
    ax_states.stackplot(steps, counts, colors=[STATE_STYLES[s].fill for s in BlockState],
                        labels=[f"{STATE_STYLES[s].glyph} {t(f'state.{s.value}', lang)}" for s in BlockState],
                        edgecolor="#333333", linewidth=0.3)
    ax_states.set_title(t("metrics.states", lang))
    ax_states.set_ylabel(t("metrics.blocks", lang))
    ax_states.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=7)
    ax_hits.plot(steps, [100 * r.hit_rate for r in rows], color=OKABE_ITO["blue"], marker=".")
    ax_hits.set_ylim(-2, 102)
    ax_hits.set_title(t("metrics.hit_rate", lang))
    ax_hits.set_ylabel("%")
    ax_preempt.step(steps, [r.preemptions for r in rows], where="post", color=OKABE_ITO["vermillion"])
    ax_preempt.set_title(t("metrics.preemptions", lang))
    ax_preempt.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax_waste.plot(steps, [r.allocated_slots for r in rows], color=OKABE_ITO["bluish_green"],
                  label=t("metrics.allocated", lang))
    ax_waste.plot(steps, [r.wasted_slots for r in rows], color=OKABE_ITO["orange"], linestyle="--",
                  label=t("metrics.wasted", lang))
    ax_waste.set_title(t("metrics.slots", lang))
    ax_waste.legend(loc="upper left", fontsize=7)
    for ax in (ax_preempt, ax_waste):
        ax.set_xlabel(t("metrics.step", lang))
    for ax in (ax_states, ax_preempt, ax_waste):  # counts: from zero, and a flat zero still shows 0 to 1
        ax.set_ylim(0, max(1, ax.get_ylim()[1]))
    if cursor is not None:
        for ax in (ax_states, ax_hits, ax_preempt, ax_waste):
            ax.axvline(cursor, color="#000000", linewidth=1, linestyle=":")
