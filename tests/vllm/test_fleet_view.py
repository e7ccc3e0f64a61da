"""The fleet view on synthetic events (no vLLM): one column per instance with its own forest, the
prompt's blocks cached or computed on each, the router's and round-robin's picks marked, every
text escaped, both languages; the widget redraws as events arrive and as prompts are routed."""
import time
from html.parser import HTMLParser

import pytest

from blockviz.i18n import t
from blockviz.markup import esc
from blockviz.views.fleet import render_fleet, source_picture
from blockviz.views.fleet_widget import FleetView
from blockviz.views.render_forest import short
from blockviz.vllm import Watch, router
from blockviz.vllm.wire import encode_batch, removed, stored

B = 4
NAMES = {"A": "src-a", "B": "src-b"}


def offline(*batches: tuple[str, list]) -> Watch:
    """A watch fed in process: each argument is (source, events) of one batch."""
    watch = Watch(["tcp://127.0.0.1:1"], subscribe=False, api=None)
    seqs: dict[str, int] = {}
    for source, events in batches:
        seqs[source] = seqs.get(source, -1) + 1
        watch.batch(source, seqs[source], encode_batch(0.0, events), "live", 0)
    return watch


def two_instances() -> Watch:
    return offline(("src-a", [stored([1], None, [0, 1, 2, 3], B)]),
                   ("src-b", [stored([7, 8], None, list(range(8)), B)]),
                   ("src-b", [stored([9], 8, [8, 9, 10, 11], B), removed([7])]))


class Elements(HTMLParser):
    """Every element's tag and attributes, in order (the page's structure, as a browser parses it)."""

    def __init__(self, html: str):
        super().__init__()
        self.found: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    def having(self, name: str) -> list[dict]:
        return [attrs for _, attrs in self.found if name in attrs]


def test_each_instance_gets_its_own_column_and_forest():
    watch = offline(("src-a", [stored([1], None, [0, 1, 2, 3], B)]),
                    ("src-b", [stored([7, 8], None, list(range(8)), B)]))
    html = render_fleet(watch.picture(), NAMES)
    page = Elements(html)
    columns = page.having("data-instance")
    assert [c["data-instance"] for c in columns] == ["A", "B"]
    hashes = [a["data-hash"] for a in page.having("data-hash")]
    assert hashes == [short(1), short(7), short(8)]   # A's forest, then B's
    assert t("fleet.no_prompt") in html and "data-chosen" not in html


def test_an_instance_picture_keeps_only_its_blocks_and_its_own_batch():
    picture = two_instances().picture()
    a, b = source_picture(picture, "src-a"), source_picture(picture, "src-b")
    assert [r.hash for r in a.blocks] == [1] and a.info.stored == [] and a.evictions == []
    assert [r.hash for r in b.blocks] == [8, 9] and [r.hash for r in b.info.stored] == [9]
    assert [r.hash for r in b.evictions] == [7]


def test_the_prompt_blocks_show_where_they_are_cached_and_the_pick_is_marked():
    watch = two_instances()
    prompt = list(range(14))   # 3 full blocks and 2 tokens after them
    choice = router.choose(watch, prompt, NAMES)
    rr = router.round_robin(watch, prompt, 0, NAMES)
    html = render_fleet(watch.picture(), NAMES, choice, prompt, round_robin=rr, block_size=B)
    page = Elements(html)
    columns = {c["data-instance"]: c for c in page.having("data-instance")}
    assert "data-chosen" in columns["A"] and "data-chosen" not in columns["B"]
    # B still holds blocks 8 and 9, but block 0's (7) was removed: vLLM's walk stops at block 0 there
    assert columns["A"]["data-cached-tokens"] == "4" and columns["B"]["data-cached-tokens"] == "0"
    states = [a["data-state"] for a in page.having("data-block")]
    assert states == ["hit", "miss", "miss", "partial", "miss", "miss", "miss", "partial"]
    assert router.explain(choice) in "".join(page.text) and router.explain(rr) in "".join(page.text)
    marks = [a["data-policy"] for a in page.having("data-policy") if a.get("class") == "bv-fleet-mark"]
    assert marks == ["kv-aware", "round-robin"]   # both picked A


def test_a_prompt_on_a_block_boundary_says_its_last_block_is_computed_again():
    watch = two_instances()
    prompt = list(range(8))
    html = render_fleet(watch.picture(), NAMES, router.choose(watch, prompt, NAMES), prompt, block_size=B)
    assert esc(t("fleet.cap")) in html


def test_names_and_token_text_are_escaped():
    watch = two_instances()
    names = {'<b>"x"</b>': "src-a", "B": "src-b"}
    prompt = list(range(9))
    evil = lambda ids: "<script>alert(1)</script>&"   # noqa: E731  a decode that returns markup
    html = render_fleet(watch.picture(), names, router.choose(watch, prompt, names), prompt, block_size=B,
                        decode=evil)
    assert "<script>" not in html and "<b>" not in html
    assert "&lt;script&gt;" in html and "&lt;b&gt;&quot;x&quot;&lt;/b&gt;" in html
    Elements(html)   # parses


def test_chinese():
    watch = two_instances()
    prompt = list(range(14))
    choice = router.choose(watch, prompt, NAMES)
    html = render_fleet(watch.picture(), NAMES, choice, prompt, block_size=B, lang="zh")
    assert t("fleet.chosen", "zh") in html and t("fleet.title", "zh", n=2, step=2) in html
    assert router.explain(choice, "zh") in html


def test_before_any_event_it_says_it_is_waiting():
    assert t("fleet.waiting") in render_fleet(None, NAMES)


def test_the_widget_redraws_as_events_arrive_and_routes_prompts():
    watch = offline()
    view = FleetView(watch, NAMES, interval=0.01)
    assert t("fleet.waiting") in view.html
    watch.batch("src-a", 0, encode_batch(0.0, [stored([1], None, [0, 1, 2, 3], B)]), "live", 0)
    deadline = time.monotonic() + 10
    while view.step != 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert view.step == 0 and 'data-instance="A"' in view.html
    choice = view.route(list(range(6)), turn=1)
    assert (choice.instance, choice.reason) == ("A", router.LONGEST)
    assert 'data-policy="round-robin"' in view.html and 'data-chosen="A"' in view.html
    watch.close()


@pytest.mark.parametrize("prompt", ["", "a"])
def test_the_widget_takes_text_through_the_models_tokenizer(prompt):
    watch = two_instances()
    view = FleetView(watch, NAMES)
    choice = view.route(prompt)
    assert choice.cached_tokens == {"A": 0, "B": 0}
    watch.close()
