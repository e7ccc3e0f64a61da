"""A real browser on the real command: `blockviz demo` (tiny model) serves the teacher's JupyterLab on
a free localhost port with a random token and the class page on another; chromium opens the printed
teacher's URL, the dashboard starts by itself, ▶ Generate makes the step counter advance and the pool
view change, a typed prompt becomes a request that runs, and the class page (its printed URL) shows
the same pool as the teacher's, without the token. Saves out/demo/demo.png. A second teacher's page
shows the same running demo. Skips only when chromium is missing.
"""
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.demo.conftest import SYSTEM

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "browser"))
from labserver import FLAGS, chromium, free_port  # noqa: E402,F401  the browser tests' flags, skip rule, ports

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

OUT = Path(__file__).resolve().parents[2] / "out" / "demo"

STATE = """() => {
  const stats = document.querySelector('.bv-demo-stats');
  const pool = document.querySelector('svg[data-view="pool"]');
  return {step: +stats.dataset.step, playing: stats.dataset.playing === '1', poolStep: +pool.dataset.step,
          states: [...pool.querySelectorAll('[data-block-id]')].map(e => e.dataset.state).join(','),
          rows: [...document.querySelectorAll('.bv-demo-table tr[data-label]')].map(r => [r.dataset.label, r.dataset.status])};
}"""


@pytest.fixture
def demo_urls(tiny_model, tmp_path):
    """`blockviz demo` on the tiny model; yields the teacher's URL (with its token) and the class page's."""
    port = free_port()
    out = tmp_path / "stdout.txt"
    with open(out, "w") as stdout:
        server = subprocess.Popen(
            [sys.executable, "-m", "blockviz", "demo", "--model", str(tiny_model), "--device", "cpu",
             "--blocks", "24", "--block-size", "4", "--requests", "40", "--arrival-every", "4", "--max-tokens", "32", "--pace", "60",
             "--system-prompt", SYSTEM, "--port", str(port), "--no-browser", "--dir", str(tmp_path / "demo")],
            stdout=stdout, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 150
        pattern = rf"^teacher: (http://127\.0\.0\.1:{port}/\S+\?token=\w+)\nclass: (http://127\.0\.0\.1:\d+/)$"
        while not (match := re.search(pattern, out.read_text(), re.M)):
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail("blockviz demo did not start:\n" + out.read_text()[-3000:])
            time.sleep(0.3)
        yield match.group(1), match.group(2)
    finally:
        server.send_signal(signal.SIGTERM)  # it stops JupyterLab and its kernel, then exits
        try:
            server.wait(40)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def test_demo_generates_live_and_takes_a_typed_prompt(chromium, demo_urls):  # chromium first: skip before starting
    from playwright.sync_api import sync_playwright

    demo_url, class_url = demo_urls
    base, token = demo_url.split("/doc/")[0], demo_url.split("token=")[1]
    with pytest.raises(urllib.error.HTTPError) as refused:  # the token is required (test_serve.py: the rest)
        urllib.request.urlopen(f"{base}/api/contents", timeout=10)
    assert refused.value.code == 403
    OUT.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1100})
            page.goto(demo_url, timeout=120_000)
            page.wait_for_selector(".bv-demo-play", timeout=150_000)  # the notebook ran by itself
            page.wait_for_selector('svg[data-view="pool"]', timeout=30_000)
            before = page.evaluate(STATE)
            assert before["step"] == 0 and before["poolStep"] == 0 and before["rows"] == [["A", "waiting"]]

            page.click(".bv-demo-play")
            seen = []
            deadline = time.monotonic() + 60
            while len({s for s in seen if s > 0}) < 3 and time.monotonic() < deadline:
                seen.append(page.evaluate(STATE)["step"])
                time.sleep(0.05)
            assert len({s for s in seen if s > 0}) >= 3, f"the step counter did not advance: {seen}"
            assert seen == sorted(seen)
            live = page.evaluate(STATE)
            assert live["playing"] and live["poolStep"] > 0 and live["states"] != before["states"]

            page.fill(".bv-demo-prompt input", "t60 t61 t62 t63")
            page.click(".bv-demo-add")
            page.wait_for_function("document.querySelector('.bv-demo-message').textContent.includes('added')",
                                   timeout=30_000)
            label = re.search(r"request (\w+) added", page.text_content(".bv-demo-message")).group(1)
            try:  # the typed request is admitted and generates while the views follow
                page.wait_for_function(
                    f"""(() => {{ const r = document.querySelector('.bv-demo-table tr[data-label="{label}"]');
                      return r && ['running', 'finished'].includes(r.dataset.status); }})()""", timeout=60_000)
            except Exception:
                pytest.fail(f"request {label} never ran: {page.evaluate(STATE)} "
                            f"{page.text_content('.bv-demo-stats')} {page.text_content('.bv-demo-message')}")
            page.set_viewport_size({"width": 1280, "height": 2800})  # the whole dashboard in one picture
            page.locator(".bv-demo").screenshot(path=str(OUT / "demo.png"))

            page.click('.bv-player button[data-cmd="back"]')  # the player's ◀ while generating pauses it
            page.wait_for_function("document.querySelector('.bv-demo-stats').dataset.playing === '0'", timeout=30_000)
            page.wait_for_function("document.querySelector('.bv-demo-message').textContent.includes('paused')",
                                   timeout=30_000)
            back = page.evaluate(STATE)
            debug = page.evaluate("""() => ({pools: [...document.querySelectorAll('svg[data-view="pool"]')].map(s => s.dataset.step),
                player: document.querySelector('.bv-player')?.textContent, stats: document.querySelector('.bv-demo-stats').outerHTML})""")
            assert back["poolStep"] < back["step"], debug  # showing an earlier step, the engine further on
            time.sleep(0.5)
            assert page.evaluate(STATE)["step"] == back["step"]  # paused means paused

            page.click(".bv-demo-play")  # ▶ Generate again: back to following the newest step
            page.wait_for_function("document.querySelector('.bv-demo-stats').dataset.playing === '1'", timeout=30_000)
            page.click(".bv-demo-play")  # and pause
            page.wait_for_function("document.querySelector('.bv-demo-stats').dataset.playing === '0'", timeout=30_000)
            page.wait_for_function(  # the refresh at the end of the loop: the views show the newest step
                """+document.querySelector('svg[data-view="pool"]').dataset.step ===
                   +document.querySelector('.bv-demo-stats').dataset.step""", timeout=30_000)
            paused = page.evaluate(STATE)
            assert paused["step"] >= back["step"]
            time.sleep(0.5)
            assert page.evaluate(STATE)["step"] == paused["step"]

            room = browser.new_context().new_page()  # the class page shows the teacher's step and states
            room.goto(class_url)
            room.wait_for_function("(step) => { const s = document.querySelector('#bv-pool svg'); "
                                   "return s && +s.dataset.step === step; }", arg=paused["poolStep"], timeout=30_000)
            assert room.evaluate("() => [...document.querySelectorAll('#bv-pool [data-block-id]')]"
                                 ".map(e => e.dataset.state).join(',')") == paused["states"]
            assert token not in room.content()

            second = browser.new_context().new_page()  # another teacher's page on the URL: the same demo
            second.goto(demo_url, timeout=120_000)
            second.wait_for_selector(".bv-demo-stats", timeout=150_000)
            assert second.evaluate(STATE)["step"] == paused["step"] and not second.evaluate(STATE)["playing"]
            assert page.evaluate(STATE)["step"] == paused["step"]  # opening it restarted nothing
        finally:
            browser.close()
    assert (OUT / "demo.png").stat().st_size > 10_000
