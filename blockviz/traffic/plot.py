"""What `blockviz traffic` shows: the trace's summary, the one-pass curve in real tokens and GiB of a
model's KV cache (what a hit saves in prefill), a CPU tier beside it, the faithful replays at the
sizes asked for; as text tables, a PNG (the curve, the replays marked) and a self-contained HTML
page (the summary, the exact command, the drawing and the tables; every text escaped)."""
import io
from dataclasses import dataclass, field

import numpy as np

from blockviz.markup import escape
from blockviz.traffic.curve import Curve, duration_s
from blockviz.traffic.curves import Point
from blockviz.traffic.lengths import HASH_BLOCK
from blockviz.traffic.trace import Trace
from blockviz.traffic.units import Model


@dataclass
class Report:
    trace: Trace
    curve: Curve
    model: Model
    command: str
    sizes: list[int]                   # the curve's rows, real tokens
    cpu_tokens: int | None = None
    replay_sets: list[tuple[str, list[tuple[int, Point]]]] = field(default_factory=list)   # (title, [(real pool tokens, replay)]) a policy

    def __post_init__(self):
        self.summary = self.trace.summary()
        self.bound = self.trace.theoretical_hit_rate(self.curve.tokens_per_id)

    @property
    def real_per_token(self) -> float:
        """Real tokens a replayed (scaled) token stands for."""
        return HASH_BLOCK / self.curve.tokens_per_id

    def add_replays(self, pools: list[int], points: list[Point], title: str):
        """One policy's replays at these pools (called once a policy: each is drawn and tabled apart)."""
        self.replay_sets.append((title, list(zip(pools, points))))

    @property
    def replays(self) -> list[tuple[int, Point]]:
        """Every replay of every policy, (real pool tokens, replay)."""
        return [r for _, replays in self.replay_sets for r in replays]

    # --- text ---------------------------------------------------------------------------

    def header(self) -> list[str] | str:
        c, trace = self.curve, self.trace
        lines = [f"{trace.name}: {self.summary}", f"KV cache of {self.model.describe()}"]
        if c.tokens_per_id != HASH_BLOCK:
            lines.append(f"scaled: {c.tokens_per_id} tokens a hash id (every length x {c.tokens_per_id}/{HASH_BLOCK}, "
                         f"the prompt totals above unscaled); pool sizes below are real tokens, a replay's own pool "
                         f"{c.tokens_per_id}/{HASH_BLOCK} of each")
        lines.append(f"an infinite cache serves {self.bound:.1%} of prompt tokens; "
                     f"nano-vllm's engine at most {c.max_hit_rate:.1%} (it never probes a prompt's last block)")
        lines.append(f"\nLRU curve, one pass (block size {c.block_size}; what it counts: blockviz.traffic.curve), "
                     f"prefill saved a second of trace for {self.model.name}:")
        return "\n".join(lines)

    @property
    def shown(self) -> list[int]:
        """The sizes of the tables: a flat stretch of the curve (the same rate to 0.1 %) in one row."""
        shown: list[int] = []
        for i, pool in enumerate(self.sizes):
            if 0 < i < len(self.sizes) - 1 and f"{self.curve.hit_rate(pool):.1%}" == f"{self.curve.hit_rate(shown[-1]):.1%}":
                continue
            shown.append(pool)
        return shown

    def saved(self, pool: int) -> tuple[float, float]:
        """(prompt tokens a second the cache serves, prefill TFLOP/s they stand for), real tokens."""
        seconds = max(duration_s(self.trace), 1e-9)
        cached = self.curve.cached_tokens(pool) * self.real_per_token
        return float(cached.sum()) / seconds, self.model.prefill_flops_saved(cached) / seconds / 1e12

    def curve_rows(self) -> list[list[str]]:
        rows = [["pool tokens", "GiB", "hit rate", "of the maximum", "prefill tokens/s saved", "prefill TFLOP/s saved"]]
        best = self.curve.max_hit_rate
        for pool in self.shown:
            rate = self.curve.hit_rate(pool)
            tokens, flops = self.saved(pool)
            rows.append([f"{pool:,}", f"{self.model.gib(pool):,.1f}", f"{rate:.1%}",
                         f"{rate / best:.0%}" if best else "-", f"{tokens:,.0f}", f"{flops:,.1f}"])
        return rows

    def milestones(self) -> str:
        parts = []
        for share in (0.5, 0.9):
            pool = self.curve.pool_for(self.curve.max_hit_rate * share)
            if pool is not None and self.curve.max_hit_rate:
                parts.append(f"{share:.0%} of the maximum at {pool:,} tokens ({self.model.gib(pool):,.1f} GiB)")
        return "; ".join(parts)

    def tier_rows(self) -> list[list[str]]:
        cpu = self.cpu_tokens or 0
        rows = [["GPU pool tokens", "GPU GiB", f"+ CPU {cpu:,} tokens ({self.model.gib(cpu):,.1f} GiB): GPU hits",
                 "CPU hits", "both", "GB/s loaded back"]]
        for pool in self.shown:
            t = self.curve.tiers(pool, cpu, self.model.kv_bytes_per_token)
            rows.append([f"{pool:,}", f"{self.model.gib(pool):,.1f}", f"{t.gpu_hit_rate:.1%}", f"{t.cpu_hit_rate:.1%}",
                         f"{t.hit_rate:.1%}", f"{t.loaded_bytes_per_s / 1e9:,.2f}"])
        return rows

    def replay_rows(self, which: int = 0) -> list[list[str]]:
        """The table of the `which`-th policy's replays."""
        rows = [["pool tokens", "GiB", "replay hit rate", "curve", "refused requests", "preemptions", "steps",
                 "seconds"]]
        for pool, p in self.replay_sets[which][1]:
            rows.append([f"{pool:,}", f"{self.model.gib(pool):,.1f}", f"{p.hit_rate:.1%}",
                         f"{self.curve.hit_rate(pool):.1%}", f"{p.refused:,}", f"{p.preemptions:,}", f"{p.steps:,}",
                         f"{p.wall_s:.1f}"])
        return rows

    @property
    def title(self) -> str:
        return f"{self.trace.name}: prefix-cache hit rate against pool size (block size {self.curve.block_size})"


def text_table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in rows)


# --- drawings ----------------------------------------------------------------------------

def figure(report: Report):
    import matplotlib
    matplotlib.use("Agg")   # files only: no display needed
    import matplotlib.pyplot as plt
    c, model = report.curve, report.model
    pools, rates = c.points()
    low = max(1, min([report.sizes[0]] + [p for p, _ in report.replays]))
    high = max([report.sizes[-1]] + [p for p, _ in report.replays])
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    x = np.concatenate([[low], pools[(pools > low) & (pools < high)], [high]])
    ax.step(x, [c.hit_rate(v) for v in x], where="post", label="LRU curve (one pass, every size)")
    best = report.bound
    ax.axhline(best, color="grey", linestyle="--", label=f"infinite cache ({best:.1%})")
    for i, (title, replays) in enumerate(report.replay_sets):   # a marker and colour a policy
        ax.plot([p for p, _ in replays], [r.hit_rate for _, r in replays], "osD^v"[i % 5], color=f"C{3 + i}",
                fillstyle="none" if i else "full", label=f"replayed through the engine ({title})")
    ax.set_xscale("log")
    ax.set_xlim(low, high)
    ax.set_xlabel("KV pool (real tokens)")
    top = ax.secondary_xaxis("top", functions=(lambda t: t * model.kv_bytes_per_token / 2**30,
                                               lambda g: g * 2**30 / model.kv_bytes_per_token))
    top.set_xlabel(f"GiB of KV cache ({model.name})")
    ax.set_ylabel("prefix-cache hit rate (cached / prompt tokens)")
    ax.set_ylim(0, max([best] + [r.hit_rate for _, r in report.replays]) * 1.15 or 1)
    ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    ax.set_title(report.title, fontsize=10)
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    return fig


def save_png(report: Report, path: str):
    import matplotlib.pyplot as plt
    fig = figure(report)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def html_table(rows: list[list[str]]) -> str:
    return "<table>" + "".join("<tr>" + "".join(f"<{t}>{escape(c)}</{t}>" for c in r) + "</tr>"
                               for r, t in zip(rows, ["th"] + ["td"] * (len(rows) - 1))) + "</table>"


def html_page(report: Report) -> str:
    import matplotlib.pyplot as plt
    fig = figure(report)
    svg = io.StringIO()
    fig.savefig(svg, format="svg")
    plt.close(fig)
    drawing = svg.getvalue()
    drawing = drawing[drawing.index("<svg"):]   # no XML prolog inside HTML
    tables = [html_table(report.curve_rows()), f"<p>{escape(report.milestones())}</p>"]
    if report.cpu_tokens is not None:
        tables.append(html_table(report.tier_rows()))
    for i, (title, _) in enumerate(report.replay_sets):
        tables += [f"<h2>faithful replays ({escape(title)})</h2>", html_table(report.replay_rows(i))]
    header = "".join(f"<p>{escape(line)}</p>" for line in report.header().strip().splitlines() if line.strip())
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{escape(report.title)}</title>"
            f"<style>body{{font-family:sans-serif}}td,th{{padding:2px 10px;text-align:right}}</style></head>"
            f"<body><h1>{escape(report.title)}</h1><p><code>{escape(report.command)}</code></p>{header}"
            f"{drawing}{''.join(tables)}</body></html>\n")
