"""The capacity curve drawn: hit rate against pool size (log axis), the infinite cache as a line;
and the same with its table as a self-contained HTML page."""
import html
import io

from blockviz.traffic.curves import Point


def figure(points: list[Point], theoretical: float, title: str):
    import matplotlib
    matplotlib.use("Agg")   # files only: no display needed
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.plot([p.pool_tokens for p in points], [p.hit_rate for p in points], "o-", label="replayed hit rate")
    ax.axhline(theoretical, color="grey", linestyle="--", label=f"infinite cache ({theoretical:.1%})")
    ax.set_xscale("log")
    ax.set_xlabel("KV pool (tokens)")
    ax.set_ylabel("prefix-cache hit rate (cached / prompt tokens)")
    ax.set_ylim(0, max(theoretical, *(p.hit_rate for p in points)) * 1.15 or 1)
    ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    ax.set_title(title)
    ax.legend(loc="lower right")
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    return fig


def table(points: list[Point], theoretical: float) -> list[list[str]]:
    rows = [["pool tokens", "hit rate", "of the maximum", "preemptions", "steps", "seconds"]]
    for p in points:
        rows.append([f"{p.pool_tokens:,}", f"{p.hit_rate:.1%}", f"{p.hit_rate / theoretical:.0%}" if theoretical else "-",
                     f"{p.preemptions:,}", f"{p.steps:,}", f"{p.wall_s:.1f}"])
    return rows


def text_table(points: list[Point], theoretical: float) -> str:
    rows = table(points, theoretical)
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in rows)


def save_png(points: list[Point], theoretical: float, title: str, path: str):
    import matplotlib.pyplot as plt
    fig = figure(points, theoretical, title)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def html_page(points: list[Point], theoretical: float, title: str) -> str:
    import matplotlib.pyplot as plt
    fig = figure(points, theoretical, title)
    svg = io.StringIO()
    fig.savefig(svg, format="svg")
    plt.close(fig)
    rows = table(points, theoretical)
    cells = "".join("<tr>" + "".join(f"<{t}>{html.escape(c)}</{t}>" for c in r) + "</tr>"
                    for r, t in zip(rows, ["th"] + ["td"] * (len(rows) - 1)))
    drawing = svg.getvalue()
    drawing = drawing[drawing.index("<svg"):]   # no XML prolog inside HTML
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>body{{font-family:sans-serif}}td,th{{padding:2px 10px;text-align:right}}</style></head>"
            f"<body><h1>{html.escape(title)}</h1>{drawing}<table>{cells}</table></body></html>\n")
