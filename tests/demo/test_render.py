"""The header, status line, totals and requests table: pure HTML, every user text escaped, the
status line's fields in fixed places."""
import re
from pathlib import Path

from blockviz import Simulator
from blockviz.demo.hits import HitLedger
from blockviz.demo.render import Status, Texts, requests_table_html, status_html, totals_html

HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>'


def test_request_text_is_escaped_and_kept_whole_on_hover():
    sim = Simulator(num_blocks=16, block_size=4)
    sim.add("hello there", max_tokens=3)
    sim.run()
    table = requests_table_html(sim.snapshot(), sim.labels, (), HitLedger(4), Texts(lambda ids: HOSTILE), (), "en")
    assert "<script" not in table and "<img" not in table
    assert "&lt;script&gt;" in table and 'title="' in table


def test_status_fields_are_always_the_same_spans():
    a = status_html(Status(3, 10, 5, 12.5, 1, 2, 3, True), "en")
    b = status_html(Status(300, 1000, 5000, 1234.5, 10, 20, 30, False), "zh")
    fields = lambda html: [part.split('"')[0] for part in html.split('data-field="')[1:]]
    assert fields(a) == fields(b) == ["step", "tokens", "rate", "running", "waiting", "finished", "playing"]
    assert 'data-step="10"' in a and 'data-cursor="3"' in a


def test_totals_name_hit_rate_tokens_saved_and_preemptions():
    ledger = HitLedger(4)
    ledger.tokens_saved, ledger.prefill_tokens, ledger.preemptions = 30, 70, 2
    html = totals_html(ledger, "en")
    assert "hit rate 30%" in html and "30 tokens saved" in html and "2 preemptions" in html


def test_the_table_shows_the_running_the_first_waiting_and_the_newest_finished():
    from blockviz.demo.render import MAX_FINISHED_ROWS, MAX_WAITING_ROWS
    sim = Simulator(num_blocks=8, block_size=4, max_num_seqs=2)
    for k in range(3 * (MAX_WAITING_ROWS + MAX_FINISHED_ROWS)):
        sim.add(f"r{k}", max_tokens=2)
    statuses = []
    while statuses.count("finished") <= MAX_FINISHED_ROWS:
        sim.step()
        snapshot = sim.snapshot()
        statuses = [seq.status for seq in snapshot.seqs.values()]
    assert statuses.count("waiting") > MAX_WAITING_ROWS
    table = requests_table_html(snapshot, sim.labels, (), HitLedger(4), Texts(sim.decode), (), "en")
    assert table.count('data-status="running"') == statuses.count("running")
    assert table.count('data-status="waiting"') == min(MAX_WAITING_ROWS, statuses.count("waiting"))
    assert table.count('data-status="finished"') == min(MAX_FINISHED_ROWS, statuses.count("finished"))
    assert f"and {statuses.count('waiting') - MAX_WAITING_ROWS} more waiting" in table
    # what is happening first: running, then waiting, then the newest finished first
    rows = re.findall(r'<tr data-status="(\w+)" data-label="[^"]*" data-seq="(\d+)"', table)
    order = {"running": 0, "waiting": 1, "finished": 2}
    assert [order[s] for s, _ in rows] == sorted(order[s] for s, _ in rows)
    finished = [int(seq) for s, seq in rows if s == "finished"]
    newest = sorted((seq.seq_id for seq in snapshot.seqs.values() if seq.status == "finished"), reverse=True)
    assert finished == newest[:MAX_FINISHED_ROWS]
    assert table.index("more waiting") < table.index('data-status="finished"') < table.index("earlier finished")


def test_a_finished_request_says_its_blocks_were_freed_and_each_number_is_named():
    """On a phone the header row is hidden: each number carries its column's name (class.css shows it
    there); a finished request's empty block table says why it is empty."""
    from blockviz.i18n import t
    sim = Simulator(num_blocks=16, block_size=4)
    sim.add("hello there", max_tokens=3)
    sim.add("again", max_tokens=2)
    sim.step()
    sim.run()
    for lang in ("en", "zh"):
        table = requests_table_html(sim.snapshot(), sim.labels, (), HitLedger(4), Texts(sim.decode), (), lang)
        finished = re.findall(r'<tr data-status="finished".*?</tr>', table)
        assert len(finished) == 2
        for row in finished:
            assert f'<td class="bv-bt"><span class="bv-col">{t("demo.col.blocks", lang)}: </span>' \
                   f'{t("demo.bt.freed", lang)}</td>' in row
            assert f'<span class="bv-col">{t("demo.col.tokens", lang)}: </span>' in row
            assert f'<span class="bv-col">{t("demo.col.hit", lang)}: </span>' in row
    css = (Path(__file__).resolve().parents[2] / "blockviz" / "demo" / "static" / "class.css").read_text()
    phone = css[css.index("@media (max-width: 700px)"):]
    assert ".bv-col { display: none; }" in css[:css.index("@media (max-width")] and ".bv-col { display: inline;" in phone


def test_the_class_page_waits_for_the_teacher_to_press_generate():
    from blockviz.demo.classroom import page_html
    from blockviz.i18n import t
    for lang in ("en", "zh"):
        assert t("demo.generate", lang) in t("class.waiting", lang)
        assert t("class.waiting", lang) in page_html(lang)
