"""Matplotlib pictures a lesson draws itself (the team's views draw the rest)."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterable

from blockviz.i18n import t
from blockviz.views.theme import matplotlib_fonts


@contextmanager
def fonts():
    """The CJK font for Chinese labels while a figure is built. Only font.family is set and put back:
    matplotlib's rc_context would also put back `interactive`, which IPython's inline backend turns on
    when the first figure of a notebook loads it, and no later figure would be shown."""
    import matplotlib
    before = matplotlib.rcParams["font.family"]
    matplotlib.rcParams["font.family"] = matplotlib_fonts()
    try:
        yield
    finally:
        matplotlib.rcParams["font.family"] = before


def pool_slots_figure(num_blocks: int, block_size: int, placed: dict[int, str], title: str = "",
                      highlight: Iterable[int] = (), crossed: Iterable[int] = (), lang: str = "en"):
    """The physical pool as a grid (a row per block, a column per offset) with labels in some slots;
    `highlight` slots orange, `crossed` slots struck through (a wrong answer)."""
    with fonts():
        return _pool_slots_figure(num_blocks, block_size, placed, title, set(highlight), crossed, lang)


def _pool_slots_figure(num_blocks: int, block_size: int, placed: dict[int, str], title: str,
                       highlight: set[int], crossed: Iterable[int], lang: str):
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle
    fig, ax = plt.subplots(figsize=(1.1 + 0.75 * block_size, 0.45 + 0.36 * num_blocks))
    for b in range(num_blocks):
        for o in range(block_size):
            slot = b * block_size + o
            filled = slot in placed
            colour = "#E69F00" if slot in highlight else ("#56B4E9" if filled else "#F2F2F2")
            ax.add_patch(Rectangle((o, num_blocks - 1 - b), 1, 1, facecolor=colour, edgecolor="#888"))
            ax.text(o + 0.5, num_blocks - 1 - b + 0.68, str(slot), ha="center", va="center", fontsize=7, color="#444")
            if filled:
                ax.text(o + 0.5, num_blocks - 1 - b + 0.3, placed[slot], ha="center", va="center", fontsize=8)
    for slot in crossed:
        b, o = divmod(slot, block_size)
        ax.text(o + 0.5, num_blocks - 1 - b + 0.32, "✗", ha="center", va="center", fontsize=13, color="#D55E00")
    ax.set_xlabel({"en": "offset t % B", "zh": "块内偏移 t % B"}[lang], fontsize=9)
    ax.set_xlim(0, block_size)
    ax.set_ylim(0, num_blocks)
    ax.set_xticks([o + 0.5 for o in range(block_size)], [str(o) for o in range(block_size)])
    ax.set_yticks([num_blocks - 1 - b + 0.5 for b in range(num_blocks)], [f"#{b}" for b in range(num_blocks)])
    ax.tick_params(length=0)
    ax.set_title(title, fontsize=10)
    for side in ax.spines.values():
        side.set_visible(False)
    fig.tight_layout()
    return fig


PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999"]  # Okabe–Ito

def contiguous_pool_figure(held, num_slots: int, columns: int, title: str = "", lang: str = "en"):
    """A contiguous pool at one step (blockviz.contiguous: `run.held[step]`), `columns` slots a row:
    each request's range in its colour, its computed slots solid and the rest of its reservation pale."""
    with fonts():
        return _contiguous_pool_figure(held, num_slots, columns, title, lang)


def _contiguous_pool_figure(held, num_slots: int, columns: int, title: str, lang: str):
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch, Rectangle
    rows = -(-num_slots // columns)
    fig, ax = plt.subplots(figsize=(max(5.0, 0.9 + 0.32 * columns), 1.0 + 0.34 * rows))
    owner = {}
    for i, h in enumerate(held):
        for slot in range(h.start, h.start + h.size):
            owner[slot] = (h, PALETTE[i % len(PALETTE)], slot - h.start < h.computed)
    for slot in range(num_slots):
        r, c = divmod(slot, columns)
        y = rows - 1 - r
        if slot in owner:
            h, colour, computed = owner[slot]
            ax.add_patch(Rectangle((c, y), 1, 1, facecolor=colour, alpha=1.0 if computed else 0.22, edgecolor="#888",
                                   linewidth=0.5))
            if slot == h.start:
                ax.text(c + 0.5, y + 0.5, h.request.label, ha="center", va="center", fontsize=8,
                        color="white" if computed else "#000")
        else:
            ax.add_patch(Rectangle((c, y), 1, 1, facecolor="#F2F2F2", edgecolor="#BBB", linewidth=0.5))
    ax.set_xlim(0, columns)
    ax.set_ylim(0, rows)
    ax.set_yticks([rows - 1 - r + 0.5 for r in range(rows)], [str(r * columns) for r in range(rows)], fontsize=7)
    ax.set_xticks([])
    ax.set_ylabel(t("fig.slot", lang), fontsize=8)
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    ax.legend(handles=[Patch(facecolor=PALETTE[0], label=t("fig.used", lang)),
                       Patch(facecolor=PALETTE[0], alpha=0.22, label=t("fig.reserved", lang)),
                       Patch(facecolor="#F2F2F2", edgecolor="#BBB", label=t("fig.free", lang))],
              loc="upper center", bbox_to_anchor=(0.5, -0.02), ncol=3, fontsize=8, frameon=False)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def usage_figure(contiguous, paged, num_slots: int, lang: str = "en"):
    """Two policies over their steps (lists of blockviz.contiguous.Usage): slots reserved and used,
    and requests holding memory."""
    with fonts():
        return _usage_figure(contiguous, paged, num_slots, lang)


def _usage_figure(contiguous, paged, num_slots: int, lang: str):
    import matplotlib.pyplot as plt
    fig, (slots, admitted) = plt.subplots(1, 2, figsize=(10, 3.8))
    policies = ((contiguous, PALETTE[5], t("fig.contiguous", lang)), (paged, PALETTE[0], t("fig.paged", lang)))
    for usage, colour, name in policies:
        steps = [u.step for u in usage]
        slots.step(steps, [u.reserved for u in usage], where="post", color=colour,
                   label=t("fig.series", lang, policy=name, measure=t("fig.reserved_line", lang)))
        slots.step(steps, [u.used for u in usage], where="post", color=colour, linestyle="--",
                   label=t("fig.series", lang, policy=name, measure=t("fig.used_line", lang)))
        admitted.step(steps, [u.admitted for u in usage], where="post", color=colour, label=name)
    slots.axhline(num_slots, color="#888", linewidth=0.8)
    slots.set_ylim(0, num_slots * 1.05)
    slots.set_ylabel(t("fig.slots", lang))
    admitted.set_ylabel(t("fig.requests", lang))
    admitted.yaxis.get_major_locator().set_params(integer=True)
    for ax in (slots, admitted):
        ax.set_xlabel(t("fig.step", lang))
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.spines[["top", "right"]].set_visible(False)
    slots.legend(fontsize=7, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
    admitted.legend(fontsize=7, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.2))
    fig.tight_layout()
    return fig
