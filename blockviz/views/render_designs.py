"""blockviz.designs.side_by_side as an HTML table: one row per request, for each design the prompt
tokens it hit, recomputed and evicted, and a last row of totals. Each request's row carries
data-request (its index, which the designs view selects by) and, where the designs' hits differ,
data-differs: the design that hit more, whose hit cell is class "bv-more"."""
from blockviz.designs import Served
from blockviz.i18n import t
from blockviz.markup import esc

COLUMNS = ("hit", "recompute", "evict")
MORE = '<td class="bv-more">'   # the hit of the design that hit more


def render_designs(served: dict[str, list[Served]], labels: list[str] | None = None, lang: str = "en") -> str:
    """labels: each request's name (default: its number); escaped, as they may be learner text."""
    designs = list(served)
    n = len(next(iter(served.values()), []))
    labels = labels or [str(i + 1) for i in range(n)]
    head = (f'<tr><th rowspan="2">{esc(t("designs.request", lang))}</th><th rowspan="2">'
            f'{esc(t("designs.prompt", lang))}</th>'
            + "".join(f'<th colspan="3">{esc(d)}</th>' for d in designs) + "</tr><tr>"
            + "".join(f"<th>{esc(t(f'designs.{c}', lang))}</th>" for _ in designs for c in COLUMNS) + "</tr>")
    body = []
    for i in range(n):
        hits = {d: served[d][i].hit for d in designs}
        more = max(hits, key=hits.get) if len(set(hits.values())) > 1 else None
        cells = "".join((MORE if d == more and c == "hit" else "<td>") + f"{getattr(served[d][i], c)}</td>"
                        for d in designs for c in COLUMNS)
        differs = f' data-differs="{esc(more)}"' if more else ""
        body.append(f'<tr data-request="{i}"{differs}><td>{esc(labels[i])}</td>'
                    f'<td>{served[designs[0]][i].prompt}</td>{cells}</tr>')
    totals = "".join(f"<td>{sum(getattr(s, c) for s in served[d])}</td>" for d in designs for c in COLUMNS)
    prompts = sum(s.prompt for s in served[designs[0]]) if designs else 0
    body.append(f"<tr><th>{esc(t('designs.total', lang))}</th><td>{prompts}</td>{totals}</tr>")
    return f'<table class="bv-designs" data-view="designs">{head}{"".join(body)}</table>'
