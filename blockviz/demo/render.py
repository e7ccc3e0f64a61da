"""The demo's header, status line, totals and requests table, as HTML: pure functions of the
engine's state, shared by the teacher's dashboard and the class page. All user text goes through
the views' one escaping function."""
from dataclasses import dataclass

from blockviz.demo.hits import AdmissionHit, HitLedger
from blockviz.demo.settings import Plan, format_bytes
from blockviz.i18n import t
from blockviz.markup import esc

MAX_FINISHED_ROWS = 12  # the requests table shows every running request, the first waiting ones
MAX_WAITING_ROWS = 12   # and the newest finished ones: a projector's screen, and a page's work per step
MAX_BLOCK_IDS = 16      # of a block table, the table shows the first ones


@dataclass(frozen=True)
class Status:
    """The numbers the status line shows: each has a fixed place, so the line never reflows."""
    step: int       # the step shown
    last_step: int  # the newest step
    tokens: int     # generated so far
    rate: float     # tokens/s at the last refresh
    running: int
    waiting: int
    finished: int
    playing: bool
    idle: bool = False  # playing, with nothing left to run: a request added now starts at once


class Texts:
    """Decoded text per request and part, kept until its tokens change (decoding is the table's cost)."""

    def __init__(self, decode):
        self.decode = decode
        self._cache: dict[tuple[int, str], tuple[int, str]] = {}

    def __call__(self, seq_id: int, part: str, token_ids) -> str:
        key, length = (seq_id, part), len(token_ids)
        cached = self._cache.get(key)
        if cached is None or cached[0] != length:
            cached = self._cache[key] = (length, self.decode(list(token_ids)))
        return cached[1]


def header_html(plan: Plan, lang: str) -> str:
    s = plan.settings
    setup = t("demo.setup", lang, model=s.model_dir.name, policy=s.policy, device=plan.device,
              blocks=plan.num_blocks, B=s.block_size, kv=format_bytes(plan.num_blocks * plan.block_bytes),
              requests=s.requests, system=len(plan.system_ids))
    system = (f"<details><summary>{esc(t('demo.system', lang))}</summary>{esc(s.system_prompt)}</details>"
              if s.system_prompt else "")
    return f"<h3>{esc(t('demo.title', lang))}</h3><div>{esc(setup)}</div>{system}"


def status_html(status: Status, lang: str) -> str:
    """One line of fixed-width fields (see class.css: .bv-field); data-* for pages and tests."""
    fields = [("step", t("demo.f.step", lang, step=status.step, last=status.last_step)),
              ("tokens", t("demo.f.tokens", lang, n=status.tokens)),
              ("rate", t("demo.f.rate", lang, rate=f"{status.rate:.0f}")),
              ("running", t("demo.f.running", lang, n=status.running)),
              ("waiting", t("demo.f.waiting", lang, n=status.waiting)),
              ("finished", t("demo.f.finished", lang, n=status.finished)),
              ("playing", t("demo.f.paused" if not status.playing else "demo.f.idle" if status.idle else "demo.f.live",
                           lang))]
    spans = "".join(f'<span class="bv-field" data-field="{name}">{esc(text)}</span>' for name, text in fields)
    return (f'<div class="bv-demo-stats" data-step="{status.last_step}" data-cursor="{status.step}" '
            f'data-playing="{int(status.playing)}" data-idle="{int(status.idle)}" data-tokens="{status.tokens}">'
            f"{spans}</div>")


def totals_html(ledger: HitLedger, lang: str) -> str:
    fields = [("hit-rate", t("demo.t.hit_rate", lang, rate=f"{100 * ledger.hit_rate:.0f}")),
              ("saved", t("demo.t.saved", lang, n=ledger.tokens_saved)),
              ("preemptions", t("demo.t.preemptions", lang, n=ledger.preemptions))]
    spans = "".join(f'<span class="bv-field" data-field="{name}">{esc(text)}</span>' for name, text in fields)
    return (f'<div class="bv-demo-totals" data-saved="{ledger.tokens_saved}" data-preemptions="{ledger.preemptions}">'
            f"{spans}</div>")


def hit_text(hit: AdmissionHit | None, lang: str) -> str:
    if hit is None:
        return t("demo.hit.none", lang)
    if not hit.blocks:
        return t("demo.hit.miss", lang)
    key = "demo.hit.radix" if hit.radix else "demo.hit"   # under sglang the second kind is cached in the tree
    text = t(key, lang, blocks=hit.blocks, tokens=hit.tokens, used=hit.hit_used, free=hit.hit_free)
    return text + (t("demo.hit.again", lang, n=hit.admissions) if hit.admissions > 1 else "")


def requests_table_html(snapshot, labels: dict[int, str], pending, ledger: HitLedger, texts: Texts,
                        system_ids: tuple[int, ...], lang: str) -> str:
    """Every request at `snapshot`'s step: status, prompt / generated tokens, its cache hit at
    admission (from `ledger`, so it stays after the request finishes), block table and text; the
    running ones first, then those queued, then the newest finished ones.
    `pending`: requests added after that step (shown as arriving)."""
    rows = []

    def text_cell(seq_id, token_ids, num_prompt):
        prompt = tuple(token_ids[:num_prompt])
        own = prompt[len(system_ids):] if system_ids and prompt[:len(system_ids)] == system_ids else prompt
        shown = ("… " if len(own) < len(prompt) else "") + texts(seq_id, "prompt", own).lstrip()
        generated = texts(seq_id, "completion", token_ids[num_prompt:])
        return (f'<td class="bv-text" title="{esc(shown + generated)}"><span class="bv-user">{esc(shown)}</span>'
                f"{esc(generated)}</td>")

    def named(column: str) -> str:
        # the column's name inside the cell, shown where the header row is not (a phone's cards: class.css)
        return f'<span class="bv-col">{esc(t("demo.col." + column, lang))}: </span>'

    def row(seq_id, label, status, status_text, tokens, hit, block_table, cell):
        ids = " ".join(map(str, block_table[:MAX_BLOCK_IDS])) + (" …" if len(block_table) > MAX_BLOCK_IDS else "")
        table = f"[{ids}]" if block_table else t("demo.bt.freed" if status == "finished" else "demo.bt.empty", lang)
        hit_attrs = "" if hit is None else f' data-hit-blocks="{hit.blocks}" data-hit-tokens="{hit.tokens}"'
        return (f'<tr data-status="{status}" data-label="{esc(label)}" data-seq="{seq_id}"{hit_attrs}>'
                f"<td>{esc(label)}</td><td>{esc(status_text)}</td><td>{named('tokens')}{tokens}</td>"
                f'<td class="bv-hit">{named("hit")}{esc(hit_text(hit, lang))}</td>'
                f'<td class="bv-bt">{named("blocks")}{esc(table)}</td>{cell}</tr>')

    seqs = list(snapshot.seqs.values())
    running = [seq for seq in seqs if seq.status == "running"]
    waiting = [seq for seq in seqs if seq.status == "waiting"]
    finished = [seq for seq in seqs if seq.status == "finished"]
    shown_finished = finished[::-1][:MAX_FINISHED_ROWS]  # the newest first
    hidden = len(finished) - len(shown_finished)

    def seq_row(seq):
        hit = ledger.by_seq.get(seq.seq_id)
        if hit is not None and hit.step > snapshot.step:
            hit = None  # admitted after the step shown
        return row(seq.seq_id, seq.label, seq.status, t("demo.status." + seq.status, lang),
                   f"{seq.num_prompt_tokens} / {len(seq.completion_token_ids)}", hit, seq.block_table,
                   text_cell(seq.seq_id, seq.token_ids, seq.num_prompt_tokens))

    # what is happening first: running, then queued (waiting, then arriving), then finished
    rows += [seq_row(seq) for seq in running + waiting[:MAX_WAITING_ROWS]]
    arriving = [arrival for arrival in pending if arrival.seq_id not in snapshot.seqs]
    room = max(0, MAX_WAITING_ROWS - len(waiting))  # arriving requests queue behind the waiting ones
    for arrival in arriving[:room]:
        rows.append(row(arrival.seq_id, labels.get(arrival.seq_id, arrival.label), "arriving",
                        t("demo.status.arriving", lang), f"{len(arrival.token_ids)} / 0", None, [],
                        text_cell(arrival.seq_id, arrival.token_ids, len(arrival.token_ids))))
    more = len(waiting[MAX_WAITING_ROWS:]) + len(arriving[room:])
    if more:
        rows.append(f'<tr><td colspan="6">{esc(t("demo.more_waiting", lang, n=more))}</td></tr>')
    rows += [seq_row(seq) for seq in shown_finished]
    if not rows:
        return f"<p>{esc(t('demo.none', lang))}</p>"
    if hidden:
        rows.append(f'<tr><td colspan="6">{esc(t("demo.hidden", lang, n=hidden))}</td></tr>')
    head = "".join(f"<th>{esc(t('demo.col.' + c, lang))}</th>"
                   for c in ("request", "status", "tokens", "hit", "blocks", "text"))
    return (f"<h4>{esc(t('demo.requests', lang))}</h4>"
            f'<table class="bv-demo-table"><tr>{head}</tr>{"".join(rows)}</table>')
