"""The class page in a real chromium while the engine generates: the page's block states are the
engine's classifier at the step it shows, a page opened late catches up, a hostile student prompt
is text on the page (never markup), and the page is legible at 1920×1080 (text in cells >= 18 px,
the panels beside the pool, a status line that does not move). The engine runs in this process,
as in the teacher's kernel; the class server in a thread, as in the demo process.
Saves out/demo/class.png and class-dark.png. Skips only when chromium is missing."""
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


@pytest.fixture
def classroom():
    server = ClassServer("en", "test-key").start()
    link = ClassLink(server.publish_url, "test-key")
    assert link.connected.wait(10)
    settings = DemoSettings(device="cpu", requests=6, max_tokens=16, arrival_every=3, refresh_ms=0, pace=0,
                            temperature=0.0)  # the embedded model, the demo's pool of 40 blocks of 16
    demo = Demo(settings, link=link)
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


def test_class_page_follows_the_engine(chromium, classroom):
    from playwright.sync_api import sync_playwright
    server, demo = classroom
    engine = demo.engine
    OUT.mkdir(parents=True, exist_ok=True)
    url = f"http://127.0.0.1:{server.port}/"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(url)
            step_and_publish(demo, 0)
            demo.publish(full=True)
            wait_for_step(page, engine.cursor)
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

            page.click("#bv-theme")
            page.click("#bv-theme")  # auto -> light -> dark
            assert page.evaluate("document.body.dataset.theme") == "dark"
            page.screenshot(path=str(OUT / "class-dark.png"))
            assert not errors, errors
        finally:
            browser.close()
    assert (OUT / "class.png").stat().st_size > 20_000
