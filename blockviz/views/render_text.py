"""The steps of a run as a plain-text table, for terminals, lessons and docs (one snapshot as text is
blockviz/text.py's render_text, which a Simulator prints)."""
from blockviz.i18n import t
from blockviz.states import BlockState, count_states
from blockviz.text import Decode
from blockviz.views.svg import columns


def render_steps_table(frames, decode: Decode | None = None, lang: str = "en") -> str:
    """One line per step: what was scheduled, and the pool in counts per state (headers in `lang`)."""
    header = [t(f"steps.{c}", lang) for c in ("step", "phase", "scheduled")] + \
        [t(f"state.{s.value}", lang) for s in BlockState] + [t(f"steps.{c}", lang) for c in ("waiting", "running")]
    rows = [header]
    for frame in frames:
        snap = frame.snapshot
        labels = {seq_id: seq.label for seq_id, seq in snap.seqs.items()}
        phase = t({None: "phase.start", True: "phase.prefill", False: "phase.decode"}[snap.is_prefill], lang)
        scheduled = " ".join(f"{labels[i]}:{n}" for i, (_, n) in snap.scheduled.items()) or "-"
        counts = count_states(snap)
        rows.append([str(frame.step), phase, scheduled] + [str(counts[s]) for s in BlockState]
                    + [" ".join(labels[i] for i in snap.waiting) or "-",
                       " ".join(labels[i] for i in snap.running) or "-"])
    widths = [max(columns(row[c]) for row in rows) for c in range(len(header))]
    return "\n".join("  ".join(cell + " " * (w - columns(cell)) for cell, w in zip(row, widths)).rstrip()
                     for row in rows)
