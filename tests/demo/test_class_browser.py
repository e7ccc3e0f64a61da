"""The class page in a real chromium while the engine generates: the page's block states are the
engine's classifier at the step it shows, a page opened late catches up, a hostile student prompt
is text on the page (never markup), and the page is legible at 1920×1080 (text in cells >= 18 px,
the hit rate and tokens saved the largest numbers, the panels beside the pool, a status line that
does not move, running requests listed first, the theme changing at the first press) and on a phone
at 390×844 (one column, totals first, text >= 16 px, no sideways scroll, the prompt form above the
pool, the pool as a strip of chips). The engine runs in this process, as in the teacher's kernel;
the class server in a thread, as in the demo process.
Under policy "sglang" the page shows SGLang's radix tree of the step it shows, the screen wide under
the pool, every text in it >= 18 px and none of it outside its panel (at 390×844 too), the hash
chain's panel empty.
Saves class.png, class-dark.png, class-phone.png, class-sglang.png and class-sglang-phone.png in
out/demo/ (the test prints where). Skips only when chromium is missing."""
import sys
import time
from pathlib import Path

import pytest

from blockviz.demo.app import Demo
from blockviz.demo.classroom import ClassServer
from blockviz.demo.link import ClassLink
from blockviz.demo.settings import DemoSettings
from blockviz.states import classify

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "browser"))
from labserver import FLAGS, chromium  # noqa: E402,F401

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]
OUT = Path(__file__).resolve().parents[2] / "out" / "demo"
HOSTILE = '<img src=x onerror="window.pwned=1">Elizabeth'

PAGE_STATE = """() => {
  const svg = document.querySelector('#bv-pool svg');
  return {version: +document.body.dataset.version, step: svg ? +svg.dataset.step : -1,
          states: svg ? [...svg.querySelectorAll('[data-block-id]')].map(e => e.dataset.state) : []};
}"""


def open_classroom(policy: str):
    server = ClassServer("en", "test-key").start()
    link = ClassLink(server.publish_url, "test-key")
    assert link.connected.wait(10)
    settings = DemoSettings(device="cpu", requests=6, max_tokens=16, arrival_every=3, refresh_ms=0, pace=0,
                            temperature=0.0, policy=policy)  # the embedded model, the demo's pool of 40 blocks of 16
    return server, link, Demo(settings, link=link)


@pytest.fixture
def classroom():
    server, link, demo = open_classroom("nano-vllm")
    yield server, demo
    link.close()
    server.stop()


@pytest.fixture
def sglang_classroom():
    server, link, demo = open_classroom("sglang")
    yield server, demo
    link.close()
    server.stop()


def step_and_publish(demo, steps: int):
    for _ in range(steps):
        if not demo.runner.step():
            break
        demo.runner.maybe_refresh(force=True)  # the live refresh: views, then the class page
    demo.link.flush()


def wait_for_step(page, step: int):
    # a function, not an expression: playwright would eval an expression, which the page's CSP forbids
    page.wait_for_function("(step) => { const s = document.querySelector('#bv-pool svg'); "
                           "return s && +s.dataset.step === step; }", arg=step, timeout=30_000)


# every visible text on the page with the size it is drawn at: HTML text by its font size, SVG text
# by its font size times the picture's scale on the screen
TEXT_SIZES = """() => {
  const out = [];
  const visible = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  for (const el of document.querySelectorAll('body *')) {
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (!own || !visible(el)) continue;
    const size = parseFloat(getComputedStyle(el).fontSize);
    const scale = el instanceof SVGElement ? el.getScreenCTM().a : 1;
    out.push({size: size * scale, text: el.textContent.trim().slice(0, 40), field: el.dataset ? el.dataset.field || '' : ''});
  }
  return out;
}"""
STATUS_RANK = {"running": 0, "waiting": 1, "arriving": 1, "finished": 2}


def open_projector_page(browser, url: str, demo):
    """The class page at 1920×1080, showing the engine's step; the list its script errors go to."""
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    step_and_publish(demo, 0)
    demo.publish(full=True)
    wait_for_step(page, demo.engine.cursor)
    return page, errors


def rows_in_order(page) -> list[str]:
    statuses = page.evaluate("() => [...document.querySelectorAll('#bv-table tr[data-status]')].map(r => r.dataset.status)")
    ranks = [STATUS_RANK[s] for s in statuses]
    assert ranks == sorted(ranks), statuses  # running first, then queued, then finished
    return statuses


def check_phone(browser, url: str, demo):
    """390×844: one column, totals first, the prompt form before the pool, the pool as a strip."""
    phone = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                             has_touch=True)
    phone.goto(url)
    wait_for_step(phone, demo.engine.cursor)
    phone.wait_for_selector("#bv-prompt:not([hidden])", timeout=30_000)
    phone.screenshot(path=str(OUT / "class-phone.png"), full_page=True)  # before the checks: kept when one fails
    wide = phone.evaluate("""() => [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > 390.5)
        .map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))""")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390, wide[:8]  # no sideways scroll
    sizes = phone.evaluate(TEXT_SIZES)
    small = [t for t in sizes if t["size"] < 16 - 0.01]
    assert sizes and not small, small[:5]
    box = {name: phone.locator(selector).bounding_box() for name, selector in
           (("totals", "#bv-totals"), ("status", "#bv-status"), ("prompt", "#bv-prompt"), ("strip", "#bv-strip"),
            ("table", "#bv-table"))}
    assert box["totals"]["y"] < box["status"]["y"] < box["prompt"]["y"] < box["strip"]["y"] < box["table"]["y"]
    assert all(b["x"] >= 0 and b["x"] + b["width"] <= 390 + 0.5 for b in box.values()), box
    assert not phone.locator("#bv-pool").is_visible()
    chips = phone.locator("#bv-strip .bv-chips .bv-chip")
    assert chips.count() == demo.engine.snapshot(demo.engine.cursor).num_blocks
    states = phone.evaluate("() => [...document.querySelectorAll('#bv-strip .bv-chips .bv-chip')].map(c => c.dataset.state)")
    assert states == phone.evaluate(PAGE_STATE)["states"]
    phone.locator("#bv-prompt-text").fill("typed on a phone")  # reachable and usable
    rows_in_order(phone)
    phone.close()


def test_class_page_follows_the_engine(chromium, classroom):
    from playwright.sync_api import sync_playwright
    server, demo = classroom
    engine = demo.engine
    OUT.mkdir(parents=True, exist_ok=True)
    print(f"screenshots: {OUT}")
    url = f"http://127.0.0.1:{server.port}/"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=FLAGS)
        try:
            page, errors = open_projector_page(browser, url, demo)
            status_box = page.locator("#bv-status").bounding_box()
            for _ in range(3):  # while it generates: the page shows the classifier's states at its step
                step_and_publish(demo, 4)
                wait_for_step(page, engine.cursor)
                shown = page.evaluate(PAGE_STATE)
                assert shown["states"] == [s.value for s in classify(engine.snapshot(shown["step"]))]
                assert page.locator("#bv-status").bounding_box() == status_box  # the line never moves
            late = browser.new_page(viewport={"width": 1280, "height": 800})  # opens mid-run: catches up
            late.goto(url)
            wait_for_step(late, engine.cursor)
            assert late.evaluate(PAGE_STATE)["states"] == page.evaluate(PAGE_STATE)["states"]
            late.close()

            # legible from the back of the room: text in cells >= 18 px on screen, panels beside the pool
            sizes = page.evaluate("""() => [...document.querySelectorAll('#bv-pool [data-block-id] text')]
                .map(t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)""")
            assert sizes and min(sizes) >= 18 - 0.5
            pool, side = page.locator("#bv-pool").bounding_box(), page.locator(".bv-side").bounding_box()
            assert side["x"] >= pool["x"] + pool["width"] - 1 and side["y"] < pool["y"] + pool["height"] / 2
            svg = page.locator("#bv-pool svg").bounding_box()
            assert svg["y"] + svg["height"] <= 1080  # the whole pool on the screen
            # the hit rate and tokens saved: the largest numbers on the page, on its first screen
            sizes = page.evaluate(TEXT_SIZES)
            totals = [t["size"] for t in sizes if t["field"] in ("hit-rate", "saved")]
            others = [t for t in sizes if t["field"] not in ("hit-rate", "saved")]
            assert len(totals) == 2 and min(totals) > max(t["size"] for t in others), (totals, max(others, key=lambda t: t["size"]))
            assert page.locator('#bv-totals [data-field="hit-rate"]').bounding_box()["y"] < 200
            assert "running" in rows_in_order(page)
            assert page.evaluate("document.documentElement.scrollWidth") <= 1920
            page.screenshot(path=str(OUT / "class.png"))

            # a student's hostile prompt, once the teacher allows prompts: text, not markup
            assert not page.locator("#bv-prompt").is_visible()  # off by default
            demo.students_open.value = True
            demo.link.flush()
            page.wait_for_selector("#bv-prompt:not([hidden])", timeout=30_000)
            page.fill("#bv-prompt-text", HOSTILE)
            page.click("#bv-prompt button")
            page.wait_for_function("() => document.querySelector('#bv-prompt-answer').textContent.includes('queued')",
                                   timeout=30_000)
            deadline = time.monotonic() + 30
            while not demo._student_ids and time.monotonic() < deadline:
                step_and_publish(demo, 1)  # the prompt reaches the engine between two steps
                time.sleep(0.05)
            assert demo._student_ids
            label = engine.labels[demo._student_ids[0]]
            step_and_publish(demo, 1)
            page.wait_for_selector(f'#bv-table tr[data-label="{label}"]', timeout=30_000)
            row = page.locator(f'#bv-table tr[data-label="{label}"] td.bv-text')
            assert "onerror" in row.text_content() and "<img" in row.text_content()  # shown as typed
            assert page.evaluate("document.querySelectorAll('#bv-table img, #bv-pool img').length") == 0
            assert page.evaluate("window.pwned") is None

            check_phone(browser, url, demo)

            background = "() => getComputedStyle(document.body).backgroundColor"
            light = page.evaluate(background)
            page.click("#bv-theme")  # the first press changes the page: the system's light -> dark
            assert page.evaluate("document.body.dataset.theme") == "dark"
            assert page.evaluate(background) != light
            page.screenshot(path=str(OUT / "class-dark.png"))
            page.click("#bv-theme")
            assert page.evaluate(background) == light
            assert not errors, errors
        finally:
            browser.close()
    assert (OUT / "class.png").stat().st_size > 20_000


RADIX_STATE = """() => {
  const pool = document.querySelector('#bv-pool svg'), tree = document.querySelector('#bv-radix svg');
  return {step: pool ? +pool.dataset.step : -1, treeStep: tree ? +tree.dataset.step : -1,
          nodes: tree ? [...tree.querySelectorAll('[data-node]')].map(e => +e.dataset.node) : []};
}"""
# every text of the tree's picture at the size it is drawn on the screen
RADIX_SIZES = """() => [...document.querySelectorAll('#bv-radix svg text')]
  .map(t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)"""
# the tree's panel shows all of its picture's width, and lies inside the screen
RADIX_FITS = """(width) => { const panel = document.getElementById('bv-radix'), box = panel.getBoundingClientRect();
  return panel.scrollWidth <= panel.clientWidth && box.left >= 0 && box.right <= width + 0.5; }"""


def test_class_page_under_sglang_shows_the_radix_tree_legibly(chromium, sglang_classroom):
    from playwright.sync_api import sync_playwright
    from blockviz.views.layout import PROJECTOR
    from blockviz.views.render_radix import preorder
    server, demo = sglang_classroom
    engine = demo.engine
    OUT.mkdir(parents=True, exist_ok=True)
    url = f"http://127.0.0.1:{server.port}/"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=FLAGS)
        try:
            page, errors = open_projector_page(browser, url, demo)
            grew = 0
            while not engine.is_finished():  # the tree of the step the page shows, as the engine has it
                step_and_publish(demo, 4)
                wait_for_step(page, engine.cursor)
                shown = page.evaluate(RADIX_STATE)
                tree = engine.snapshot(shown["step"]).tree
                assert shown["treeStep"] == shown["step"]
                assert shown["nodes"] == [node.id for node, _ in preorder(tree)][:PROJECTOR.radix_rows]
                grew = max(grew, len(shown["nodes"]))
            assert grew > 2   # the shared prompt's node, the finished requests' own below it
            assert page.locator("#bv-radix svg").is_visible() and not page.locator("#bv-chain").is_visible()
            sizes = page.evaluate(RADIX_SIZES)
            assert sizes and min(sizes) >= 18 - 0.5
            assert page.evaluate(RADIX_FITS, 1920)
            pool, tree = page.locator("#bv-pool").bounding_box(), page.locator("#bv-radix").bounding_box()
            assert tree["y"] >= pool["y"] + pool["height"] - 1   # the screen wide, under the pool
            cells = page.evaluate("""() => [...document.querySelectorAll('#bv-pool [data-block-id] text')]
                .map(t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)""")
            assert cells and min(cells) >= 18 - 0.5   # the pool as legible as under nano-vllm
            assert page.evaluate("document.documentElement.scrollWidth") <= 1920
            page.locator("#bv-radix").scroll_into_view_if_needed()
            page.screenshot(path=str(OUT / "class-sglang.png"), full_page=True)

            phone = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                                     has_touch=True)
            phone.goto(url)
            wait_for_step(phone, engine.cursor)
            phone.screenshot(path=str(OUT / "class-sglang-phone.png"), full_page=True)
            assert phone.evaluate(RADIX_STATE)["nodes"] == page.evaluate(RADIX_STATE)["nodes"]
            assert phone.evaluate("document.documentElement.scrollWidth") <= 390   # no sideways scroll
            tree = phone.locator("#bv-radix").bounding_box()
            assert tree["x"] >= 0 and tree["x"] + tree["width"] <= 390 + 0.5
            assert tree["y"] > phone.locator("#bv-table").bounding_box()["y"]   # after the requests
            sizes = phone.evaluate(RADIX_SIZES)
            assert sizes and min(sizes) >= 16 - 0.01
            phone.close()
            assert not errors, errors
        finally:
            browser.close()
    assert (OUT / "class-sglang.png").stat().st_size > 20_000
