"""Matplotlib pictures a lesson draws itself (the team's views draw the rest)."""
from __future__ import annotations

from typing import Iterable

from blockviz.views.theme import matplotlib_fonts


def pool_slots_figure(num_blocks: int, block_size: int, placed: dict[int, str], title: str = "",
                      highlight: Iterable[int] = (), crossed: Iterable[int] = (), lang: str = "en"):
    """The physical pool as a grid (a row per block, a column per offset) with labels in some slots;
    `highlight` slots orange, `crossed` slots struck through (a wrong answer)."""
    from matplotlib import rc_context
    with rc_context({"font.family": matplotlib_fonts()}):  # the CJK font for Chinese labels
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
