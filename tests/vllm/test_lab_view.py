"""The lab view (views/lab.py) of hand-built results: both engines per request, every difference with
its rule or marked unexplained, the hit-rate curve, the rules with their sources; text escaped."""
from xml.etree import ElementTree

import pytest

from blockviz.i18n import t
from blockviz.views.lab import render_lab
from blockviz.views.lab_widget import LabView
from blockviz.vllm.lab import LabRequest, Outcome, replay, rules

from tests.vllm.test_lab_rules import A, A0, Bq, C, VLLM_HANDMADE, lab_of


def parse(html: str) -> ElementTree.Element:
    return ElementTree.fromstring(html.replace("<br>", "<br/>"))


@pytest.fixture
def result():
    return lab_of([A, Bq, C, A], VLLM_HANDMADE)


def test_one_row_per_request_with_both_engines_cached_tokens(result):
    rows = parse(render_lab(result)).findall(".//tbody/tr")
    assert [r.get("data-index") for r in rows] == ["0", "1", "2", "3"]
    cells = [[td.text for td in r.findall("td")[:3]] for r in rows]
    assert cells[3] == ["6", "4", "0"]          # prompt tokens, vLLM cached, nano-vllm cached
    assert [r.get("data-differs") for r in rows] == ["false", "false", "true", "true"]


def test_each_difference_names_its_rule_and_the_eviction_behind_it(result):
    why = parse(render_lab(result)).findall(".//div[@class='bv-lab-why']")
    assert [(d.get("data-what"), d.get("data-rules")) for d in why] == [
        ("resident", rules.FREE_UNHASHED_FIRST), ("cached_tokens", rules.FREE_UNHASHED_FIRST),
        ("resident", rules.FREE_UNHASHED_FIRST)]
    text = "".join(why[1].itertext())
    assert t("lab.short.free_unhashed_first") in text
    assert t("lab.diff.block", block=result.block_name(A0), step=result.nano[2].steps[0].step, request="2") in text


def test_an_unexplained_difference_is_shown_as_such():
    made_up = [Outcome(0, (), frozenset({A0})), Outcome(4, (), frozenset({A0, Bq[:4]}))]
    root = parse(render_lab(lab_of([A, Bq], made_up)))
    assert root.find(".//p[@class='bv-lab-unexplained']").text == t("lab.unexplained.count", n=1)
    text = "".join(root.find(".//div[@data-rules='']").itertext())
    assert t("lab.unexplained") in text
    assert t("lab.residual", left=t("lab.diff.cached_tokens", vllm=4, nano=0)) in text


def test_the_curve_has_a_point_per_request_for_each_engine(result):
    lines = {p.get("data-engine"): p.get("points").split() for p in parse(render_lab(result)).iter("polyline")}
    assert set(lines) == {"vllm", "nano"} and all(len(points) == 4 for points in lines.values())
    assert lines["vllm"][-1] != lines["nano"][-1]   # vLLM hit at the end, nano-vllm did not


def test_the_rules_cite_their_source_and_the_last_token_check_is_computed(result):
    root = parse(render_lab(result, lang="zh"))
    items = {li.get("data-rule"): "".join(li.itertext()) for li in root.iter("li")}
    assert set(items) == set(rules.RULES)
    assert "block_pool.py: BlockPool.free_blocks" in items[rules.FREE_UNHASHED_FIRST]
    assert t("lab.rule.checked", "zh", n=4, differ=0) in items[rules.LAST_TOKEN]
    assert t("lab.rule.explains", "zh", n=3) in items[rules.FREE_UNHASHED_FIRST]


def test_labels_are_escaped():
    stream = [LabRequest(A, 1, label="<script>x</script>")]
    result = replay(stream, [A], [(9,)], [Outcome(0, (), frozenset({A0}))], 4, 5, record=False)
    html = render_lab(result)
    assert "<script>" not in html and "&lt;script&gt;" in html
    parse(html)


def test_the_widget_shows_a_result_and_a_new_one(result):
    view = LabView(result, lang="zh")
    assert t("lab.col.why", "zh") in view.value
    view.show(lab_of([A], VLLM_HANDMADE[:1]))
    assert 'data-index="1"' not in view.value


def test_every_rule_of_the_stylesheet_styles_something_the_view_draws(result):
    import re
    from blockviz.views.lab import CSS
    made_up = [Outcome(0, (), frozenset({A0})), Outcome(4, (), frozenset({A0, Bq[:4]}))]
    pages = render_lab(result) + render_lab(lab_of([A, Bq], made_up))
    drawn = {c for classes in re.findall(r'class="([^"]*)"', pages) for c in classes.split()}
    styled = set(re.findall(r"\.(bv-lab[\w-]*)", CSS.read_text()))
    assert styled <= drawn and "bv-lab" in styled


def test_a_burst_row_says_when_vllm_took_each_request_in():
    from blockviz.vllm.lab import Change
    X, Y = (1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 2, 3, 4, 15, 16, 17, 18, 19)
    steps = (Change(3, (Y[:4], Y[:8]), ()), Change(4, (X[:8],), ()))   # vLLM took Y first, X a step later
    held = frozenset({X[:4], X[:8], Y[:8]})
    stream = [LabRequest(X, 1, group=0, label="X"), LabRequest(Y, 1, group=0, label="Y")]
    result = replay(stream, [X, Y], [(9,), (9,)], [Outcome(0, steps, held), Outcome(0, steps, held)], 4, 9,
                    record=False)
    assert result.batches == [[1, 0]] and result.vllm_admitted == {1: 3, 0: 4}
    rows = parse(render_lab(result)).findall(".//tbody/tr")
    assert t("lab.admitted", step=4) in "".join(rows[0].find("th").itertext())
    assert t("lab.burst", others="X") in "".join(rows[1].find("th").itertext())
