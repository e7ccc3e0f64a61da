"""The policy lab drawn (vllm/lab/): both engines per request, why they differ, the hit-rate curve,
and the rules with the code each was read from. Pure: a LabResult in, escaped HTML out."""
from blockviz.i18n import t
from blockviz.markup import esc
from blockviz.views.assets import JS
from blockviz.vllm.lab import rules
from blockviz.vllm.lab.outcome import Key, Outcome
from blockviz.vllm.lab.run import LabResult

CSS = JS / "lab.css"
SHOWN = 6   # block names listed per cell before "… n more"
NUMBER = ' class="bv-num"'  # a column of numbers: right-aligned (lab.css)
VLLM_COLOUR, NANO_COLOUR = "#0072B2", "#D55E00"   # Okabe-Ito blue and vermillion; the lines also differ in dash


def names(result: LabResult, keys, lang: str) -> str:
    keys = list(keys)
    if not keys:
        return t("lab.none", lang)
    shown = ", ".join(result.block_name(k) for k in keys[:SHOWN])
    return shown + (" " + t("lab.more", lang, n=len(keys) - SHOWN) if len(keys) > SHOWN else "")


def held(result: LabResult, only_vllm, only_nano, lang: str) -> str:
    """Blocks one engine held and the other did not, in stream order."""
    return t("lab.diff.resident", lang, only_vllm=names(result, sorted(only_vllm, key=result.block_place), lang),
             only_nano=names(result, sorted(only_nano, key=result.block_place), lang))


def steps_cell(result: LabResult, outcome: Outcome, lang: str) -> str:
    first, last = (outcome.steps[0].step, outcome.steps[-1].step) if outcome.steps else (None, None)
    steps = "" if first is None else t("lab.step", lang, step=first) if first == last else \
        t("lab.steps", lang, first=first, last=last)
    return (f'<td><span class="bv-lab-steps">{esc(steps)}</span><br>+ {esc(names(result, outcome.stored, lang))}'
            f'<br>− {esc(names(result, outcome.evicted, lang))}</td>')


def where_evicted(result: LabResult, key: Key, index: int, lang: str) -> str:
    for outcomes, text in ((result.nano, "lab.diff.block"), (result.vllm, "lab.diff.block_vllm")):
        found = rules.evicted_where(key, outcomes, index)
        if found is not None:
            return t(text, lang, block=result.block_name(key), step=found[1], request=result.labels[found[0]])
    return ""


def residual(result: LabResult, d: rules.Difference, lang: str) -> str:
    """What still differs once every rule is put in."""
    v, n = result.vllm[d.index], result.with_every_rule[d.index]
    if d.what == "cached_tokens":
        left = t("lab.diff.cached_tokens", lang, vllm=v.cached_tokens, nano=n.cached_tokens)
    else:
        left = held(result, v.resident - n.resident, n.resident - v.resident, lang)
    return t("lab.residual", lang, left=left)


def difference_text(result: LabResult, d: rules.Difference, lang: str) -> str:
    if d.what == "cached_tokens":
        what = t("lab.diff.cached_tokens", lang, vllm=d.vllm, nano=d.nano)
        block = result.first_missing_block(d)
        evidence = where_evicted(result, block, d.index, lang) if block is not None else ""
    else:
        what = held(result, d.only_vllm, d.only_nano, lang)
        evidence = ""
    short = lambda names: " + ".join(t(f"lab.short.{r}", lang) for r in names)
    why = short(d.rules) if d.rules else t("lab.unexplained", lang)
    if d.alternatives:
        why = t("lab.or", lang, rules=why, other="; ".join(short(a) for a in d.alternatives))
    if not d.explained:
        evidence = residual(result, d, lang)
    cls = "bv-lab-why" if d.explained else "bv-lab-why bv-lab-unexplained"
    evidence = f'<br><small>{esc(evidence)}</small>' if evidence else ""
    return (f'<div class="{cls}" data-what="{esc(d.what)}" data-rules="{esc(" ".join(d.rules))}">'
            f'{esc(t("lab.diff.because", lang, what=what, why=why))}{evidence}</div>')


def rows(result: LabResult, lang: str) -> str:
    by_request: dict[int, list[rules.Difference]] = {}
    for d in result.differences:
        by_request.setdefault(d.index, []).append(d)
    batch_of = {i: batch for batch in result.batches for i in batch}
    out = []
    for i, label in enumerate(result.labels):
        v, n = result.vllm[i], result.nano[i]
        others = [result.labels[j] for j in batch_of[i] if j != i]
        burst = f'<br><small>{esc(t("lab.burst", lang, others=", ".join(others)))}</small>' if others else ""
        if i in result.vllm_admitted:
            burst += f'<br><small>{esc(t("lab.admitted", lang, step=result.vllm_admitted[i]))}</small>'

        why = "".join(difference_text(result, d, lang) for d in by_request.get(i, []))
        out.append(f'<tr data-index="{i}" data-differs="{str(bool(why)).lower()}">'
                   f'<th scope="row">{esc(label)}{burst}</th>'
                   f'<td{NUMBER}>{len(result.prompts[i])}</td><td{NUMBER}>{v.cached_tokens}</td>'
                   f'<td{NUMBER}>{n.cached_tokens}</td>'
                   f'{steps_cell(result, v, lang)}{steps_cell(result, n, lang)}<td>{why}</td></tr>')
    return "".join(out)


def curve(result: LabResult, lang: str, width: int = 560, height: int = 160) -> str:
    """The cumulative hit rate of each engine, request by request (0 to 100 %)."""
    rates = result.hit_rates()
    left, right, top, bottom = 40, 10, 10, 24
    count = len(result.prompts)
    x = lambda i: left + (width - left - right) * (i / max(count - 1, 1))
    y = lambda r: top + (height - top - bottom) * (1 - r)
    body = [f'<line x1="{left}" y1="{y(0):g}" x2="{width - right}" y2="{y(0):g}" class="bv-lab-axis"/>',
            f'<line x1="{left}" y1="{y(0):g}" x2="{left}" y2="{y(1):g}" class="bv-lab-axis"/>']
    for r in (0, 0.5, 1):
        body.append(f'<text x="{left - 4}" y="{y(r) + 4:g}" text-anchor="end" font-size="10">{r:.0%}</text>')
    for engine, colour, dash in (("vllm", VLLM_COLOUR, ""), ("nano", NANO_COLOUR, ' stroke-dasharray="5 3"')):
        points = " ".join(f"{x(i):.1f},{y(r):.1f}" for i, r in enumerate(rates[engine]))
        body.append(f'<polyline data-engine="{engine}" points="{points}" fill="none" stroke="{colour}" '
                    f'stroke-width="2"{dash}/>')
    legend = t("lab.hit_rate.final", lang, vllm=f"{rates['vllm'][-1]:.1%}", nano=f"{rates['nano'][-1]:.1%}")
    body.append(f'<text x="{left}" y="{height - 6}" font-size="11">{esc(legend)}</text>')
    return (f'<svg class="bv-lab-curve" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
            f'aria-label="{esc(t("lab.hit_rate", lang) + ": " + legend)}">{"".join(body)}</svg>')


def rules_list(result: LabResult, lang: str) -> str:
    counts = {name: sum(name in d.rules for d in result.differences) for name in rules.RULES}
    items = []
    for name, rule in rules.RULES.items():
        if name == rules.LAST_TOKEN:
            note = t("lab.rule.checked", lang, n=len(result.prompts), differ=len(result.last_token_rule_agrees()))
        else:
            note = t("lab.rule.explains", lang, n=counts[name])
        title, note = t(f"lab.rule.{name}", lang), t("lab.paren", lang, text=note)
        items.append(f'<li data-rule="{esc(name)}"><b>{esc(title)}</b> {esc(note)}<br>'
                     f'<small>nano-vllm: {esc(rule.nano)}<br>vLLM: {esc(rule.vllm)}</small></li>')
    return f'<h4>{esc(t("lab.rules", lang))}</h4><ul>{"".join(items)}</ul>'


def render_lab(result: LabResult, lang: str = "en") -> str:
    head = t("lab.title", lang, n=len(result.prompts), size=result.block_size, blocks=result.vllm_blocks,
             nano=result.nano_blocks)
    count = t("lab.unexplained.count", lang, n=len(result.unexplained))
    unexplained = f'<p class="bv-lab-unexplained">{esc(count)}</p>' if result.unexplained else ""
    numbers = {"prompt", "vllm_cached", "nano_cached"}  # right-aligned, as their cells
    columns = "".join(f'<th scope="col"{NUMBER if c in numbers else ""}>{esc(t(f"lab.col.{c}", lang))}</th>'
                      for c in ("request", "prompt", "vllm_cached", "nano_cached", "vllm_steps", "nano_steps", "why"))
    return (f'<div class="bv-lab" data-view="lab" lang="{esc(lang)}"><style>{CSS.read_text(encoding="utf-8")}</style>'
            f'<p class="bv-lab-title">{esc(head)}</p>{unexplained}'
            f'<p>{esc(t("lab.hit_rate", lang))}</p>{curve(result, lang)}'
            f'<p class="bv-lab-legend">{esc(t("views.lab_legend", lang))}</p>'
            f'<div class="bv-lab-table"><table class="bv-lab-requests"><thead><tr>{columns}</tr></thead>'
            f'<tbody>{rows(result, lang)}</tbody></table></div>'
            f'{rules_list(result, lang)}</div>')
