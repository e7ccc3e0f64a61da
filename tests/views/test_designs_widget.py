"""show(prompts, "designs"): the table, a request chosen by its row, the slider or ◀ ▶, and each
design's cache after it, shown by the widget's own page module (js/designs.js, in node: jspage.py)
exactly as render_after draws it, in a small pool and a GPU-sized one; a page opened late catches up."""
import asyncio
import json

import pytest

from blockviz.designs_after import compare
from blockviz.sim import Simulator
from blockviz.views import registry, show
from blockviz.views.designs_widget import DesignsView
from blockviz.views.render_after import render_after

PROMPTS = ["the cat sat on the mat", "the cat sat on the hat", "a dog ran far away from here",
           "the cat sat on the mat"]


def shows(page, pages, comparison, i: int) -> bool:
    picture = render_after(comparison, i)
    return (page.html('[data-design="nano-vllm"] svg') == pages.parse(picture.pool.svg())
            and page.html('div[data-design="sglang"]') == pages.parse(
                f'<div class="bv-designs-side" data-design="sglang">{picture.tree}{picture.pages}</div>')
            and page.attribute(".bv-designs-summary", "data-request") == str(i)
            and page.attribute(f'tr[data-request="{i}"]', "aria-selected") == "true")


def test_the_registry_row_names_the_widget_and_show_opens_it():
    assert registry.widget(registry.DESIGNS_VIEWS, "designs") is DesignsView
    view = show(PROMPTS, "designs", num_blocks=12, block_size=4, selected=2)
    assert isinstance(view, DesignsView) and view.selected == 2 and view.count == 4
    with pytest.raises(ValueError, match="at least one request"):
        show([], "designs")
    with pytest.raises(ValueError, match="a list of prompts"):
        show(Simulator(num_blocks=8, block_size=4), "designs")
    assert "请求" in show(PROMPTS[:1], "designs", lang="zh").summary


def test_rows_and_the_buttons_choose_the_request_the_page_shows(pages):
    comparison = compare(PROMPTS, num_blocks=12, block_size=4)
    view = DesignsView(comparison)
    page = pages.open(view)
    assert shows(page, pages, comparison, 0)
    assert page.attribute('button[aria-label="previous request"]', "disabled") is not None
    page.click('tr[data-request="3"]')
    assert view.selected == 3 and shows(page, pages, comparison, 3)
    assert page.attribute('button[aria-label="next request"]', "disabled") is not None
    page.click('button[aria-label="previous request"]')
    assert view.selected == 2 and shows(page, pages, comparison, 2)
    view.selected = 1   # Python moves it: the page follows
    assert shows(page, pages, comparison, 1)
    late = pages.open(view)   # its `full` is old: it asks for the pool whole
    assert shows(late, pages, comparison, 1) and shows(page, pages, comparison, 1)


def test_a_gpu_sized_pool_is_patched_request_by_request(pages):
    comparison = compare(PROMPTS, num_blocks=65536, block_size=4)
    view = DesignsView(comparison)
    page = pages.open(view)
    for i in (1, 2, 3, 0, 3):
        view.selected = i
        assert shows(page, pages, comparison, i)


def test_the_buttons_show_the_request_sent_ahead_before_python_answers(pages):
    comparison = compare(PROMPTS, num_blocks=12, block_size=4)
    view = DesignsView(comparison, selected=1)
    page = pages.open(view)
    assert page.attribute(".bv-designs-view", "data-ahead") == "2 0"
    with pages.held():   # what the page sends waits: it shows request 2 on its own
        page.click('button[aria-label="next request"]')
        assert view.selected == 1 and shows(page, pages, comparison, 2)
    assert view.selected == 2 and shows(page, pages, comparison, 2)   # Python's patch for the move: old, ignored
    assert page.attribute(".bv-designs-view", "data-ahead") == "3 1"
    with pages.held():
        page.click('button[aria-label="previous request"]')
        assert shows(page, pages, comparison, 1)
    page.click('tr[data-request="3"] td')   # a jump: Python draws it
    assert view.selected == 3 and shows(page, pages, comparison, 3)


def test_in_a_kernels_event_loop_the_answer_goes_first_and_only_the_last_moves_neighbours_follow():
    comparison = compare(PROMPTS, num_blocks=12, block_size=4)

    async def turns():
        for _ in range(8):
            await asyncio.sleep(0)

    async def run():
        view = DesignsView(comparison, selected=1)
        assert view.ahead == "[]" and view.drawing_ahead   # nothing drawn ahead before the answer is out
        await turns()
        assert [entry["request"] for entry in json.loads(view.ahead)] == [2, 0] and not view.drawing_ahead
        assert view.warmed and len(comparison) - 1 in view.recent   # drawn once after, for the jumps to come
        drawn, draw = [], view.draw
        view.draw = lambda i: drawn.append(i) or draw(i)
        view.selected = 3   # a jump, then another before the loop turns: 3's neighbour is never drawn
        view.selected = 0
        assert drawn == [3, 0] and view.summary == render_after(comparison, 0).summary
        await turns()
        assert drawn == [3, 0, 1]
        (entry,) = json.loads(view.ahead)
        assert entry["request"] == 1 and entry["patch"]["base"] == view.version
        assert entry["summary"] == render_after(comparison, 1).summary
    asyncio.run(run())
