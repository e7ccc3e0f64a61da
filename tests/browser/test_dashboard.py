"""A real browser: JupyterLab runs a notebook that records a run in a Simulator and opens a
Dashboard at its first step; Playwright drives Debian's chromium, steps forward, back and jumps, and
after each move the block states in the page must equal the engine's classifier and the pool in
the page must be exactly the pool Python renders for that step (so a pool patched cell by cell, and
one stepped from the patches sent ahead, is the same as one drawn whole). Past the recorded end ▶
runs the engine; the cell pressed in becomes JupyterLab's active cell. A view opened at a step
stays there while the engine runs on; the player stays in view when the page scrolls; no pane
overflows sideways (at 1280 and 1400 px, and at 1800 with the panes side by side, the pool
flowing into the columns its pane has room for); Enter in the step field jumps. The KV view's K/V switch redraws it with V.

Saves a screenshot and the latencies (median, p90, max; with the machine's load average) in
out/browser/latency.json, each from the click event (its timeStamp: a real mouse click through
chromium's input pipeline, from Playwright) to the end of the first frame drawn after the page
shows it (a task queued from requestAnimationFrame); each dashboard is in view before its first
timed press: "step shown" is until the pool and the player's step (its status and step
field) show the new step, "panes" until the mapping pane, which only Python redraws, shows it too.

Run alone: .venv/bin/python -m pytest tests/browser   (tests/browser/install_chromium.sh installs chromium)
"""
import json
import os
from pathlib import Path
from statistics import median, quantiles

import nbformat
import pytest

from blockviz.states import classify
from blockviz.views.render_view import render_view

from browser_scenario import scenario
from labserver import jupyterlab, notebook_page

pytestmark = [pytest.mark.browser, pytest.mark.timeout(420)]

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "out" / "browser"
STEPS = 6  # recorded steps: forward presses on each pool, then as many back: timed, then again checked after each
LIVE = 2   # presses of ▶ past the recorded end of the large pool: the engine runs (it finishes at step 8)

SETUP = """\
import sys
sys.path[:0] = [{repo!r}, {here!r}]
from browser_scenario import kv_timeline, scenario
from blockviz.views import show
"""


@pytest.fixture
def lab(tmp_path):
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell(SETUP.format(repo=str(REPO), here=str(Path(__file__).parent))),
        nbformat.v4.new_code_cell(f"small = scenario(12)\nsmall.run({STEPS})\nsmall_dash = show(small, step=0)\nsmall_dash"),
        nbformat.v4.new_code_cell(f"big = scenario(1024)\nbig.run({STEPS})\nbig_dash = show(big, step=0)\nbig_dash"),
        nbformat.v4.new_code_cell('show(kv_timeline(), "kv", step=1)'),
        nbformat.v4.new_code_cell("pinned_sim = scenario(20)\npinned_sim.run(2)\npinned = show(pinned_sim, 'pool', step=1)\n"
                                  "pinned"),
    ])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    (tmp_path / "root").mkdir()
    nbformat.write(notebook, tmp_path / "root" / "dashboard.ipynb")
    with jupyterlab(tmp_path / "root", tmp_path) as url:
        yield url.format(notebook="dashboard.ipynb")


STEP_AND_WAIT = """([numBlocks, cmd, expected]) => new Promise((resolve, reject) => {
  const pool = () => document.querySelector(`svg[data-view="pool"][data-num-blocks="${numBlocks}"]`);
  const cell = pool().closest('.jp-Cell');
  const t0 = performance.now();
  const done = () => {
    const p = pool();
    if (!p || p.dataset.step !== String(expected)) return false;
    observer.disconnect();
    requestAnimationFrame(() => resolve(performance.now() - t0));  // rendered, up to the next frame
    return true;
  };
  const observer = new MutationObserver(done);
  observer.observe(cell, { subtree: true, childList: true, attributes: true });
  setTimeout(() => { observer.disconnect(); reject(new Error('no render of step ' + expected)); }, 30000);
  cell.querySelector(`.bv-player button[data-cmd="${cmd}"]`).click();
})"""

# Arms the timing of the next click in the dashboard of that pool (window.bvTiming, a promise):
# {shown, panes, answered} in ms from the click event (answered: the player has Python's answer to
# every command, so the next press finds the steps around sent ahead), and `local`: whether the pool
# and the player showed the step by the end of the click's own handling, without Python.
ARM_TIMING = """([numBlocks, expected]) => {
  const pool = () => document.querySelector(`svg[data-view="pool"][data-num-blocks="${numBlocks}"]`);
  const cell = pool().closest('.jp-Cell'), player = cell.querySelector('.bv-player');
  const mapping = () => cell.querySelector('svg[data-view="mapping"]');
  const step = String(expected);
  // the end of the frame that draws the change: a task queued from requestAnimationFrame runs after it
  const drawn = (then) => requestAnimationFrame(() => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => then(performance.now());
    channel.port2.postMessage(null);
  });
  window.bvTiming = new Promise((resolve, reject) => {
    let t0 = null, seen = false, shown = null, panes = null, local = null;
    const showing = () => pool().dataset.step === step && player.dataset.step === step &&
      player.querySelector('.bv-status').textContent.includes(`step ${step} `);
    const check = () => {
      if (t0 === null) return;
      if (!seen && showing()) {
        seen = true;
        drawn((t) => { shown = t - t0; check(); });
      }
      if (shown !== null && panes === null && mapping().dataset.step === step) {
        panes = -1;
        drawn((t) => { panes = t - t0; check(); });
      }
      if (panes > 0 && player.getAttribute('aria-busy') === 'false') {
        observer.disconnect();
        resolve({ shown, panes, answered: performance.now() - t0, local });
      }
    };
    const observer = new MutationObserver(check);
    // only the attributes it reads: a record of each of a step's thousands of attribute writes
    // would add the observer's own cost to the time it measures
    observer.observe(cell, { subtree: true, childList: true, characterData: true,
                             attributeFilter: ['data-step', 'aria-busy'] });
    cell.addEventListener('click', (e) => { t0 = e.timeStamp; }, { capture: true, once: true });
    cell.addEventListener('click', () => { local = showing(); check(); }, { once: true });  // after the button's
    setTimeout(() => { observer.disconnect(); reject(new Error('step ' + step + ' not shown')); }, 30000);
  });
}"""

# The baseline of the same run: one ▷/❚❚ press, a widget round trip that sends back one small
# change (the play button's state) and draws nothing.
TOGGLE_AND_WAIT = """(numBlocks) => new Promise((resolve, reject) => {
  const cell = document.querySelector(`svg[data-view="pool"][data-num-blocks="${numBlocks}"]`).closest('.jp-Cell');
  const play = cell.querySelector('.bv-player button[data-cmd="toggle"]'), was = play.getAttribute('aria-pressed');
  const t0 = performance.now();
  const observer = new MutationObserver(() => {
    if (play.getAttribute('aria-pressed') === was) return;
    observer.disconnect();
    requestAnimationFrame(() => resolve(performance.now() - t0));
  });
  observer.observe(play, { attributes: true });
  setTimeout(() => { observer.disconnect(); reject(new Error('no answer to play/pause')); }, 30000);
  play.click();
})"""

FRAMES = "new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))"  # two drawn

READ_STATES = """(numBlocks) => {
  const svg = document.querySelector(`svg[data-view="pool"][data-num-blocks="${numBlocks}"]`);
  return [svg.dataset.step, [...svg.querySelectorAll('[data-block-id]')].map(e => e.dataset.state)];
}"""

# Every pool of that size in the page, compared with `expected` parsed the same way: "" if equal,
# else where they first differ.
POOL_DIFFERENCES = """([numBlocks, expected]) => {
  const box = document.createElement('div');
  box.innerHTML = expected;
  const want = box.firstElementChild.outerHTML;
  return [...document.querySelectorAll(`svg[data-view="pool"][data-num-blocks="${numBlocks}"]`)].map(svg => {
    const got = svg.outerHTML;
    if (got === want) return "";
    let i = 0;
    while (got[i] === want[i]) i++;
    const from = Math.max(0, i - 80);
    return `at ${i}: page ${got.slice(from, i + 80)} | python ${want.slice(from, i + 80)}`;
  });
}"""

# A new cell at the end running `source` (the last cell's output may take a moment to appear).
RUN_CELL = """async (source) => {
  const app = window.jupyterapp, notebook = app.shell.currentWidget.content;
  notebook.activeCellIndex = notebook.widgets.length - 1;
  await app.commands.execute('notebook:insert-cell-below');
  notebook.activeCell.model.sharedModel.setSource(source);
  await app.commands.execute('notebook:run-cell');
}"""

# Scrolls the notebook until the big dashboard's pool is mid-screen: [player's top, pool's top, viewport
# top of the notebook] — a sticky player stays at the top while its pool scrolls under it.
SCROLL_TO_POOL = """() => {
  const pool = document.querySelector('svg[data-view="pool"][data-num-blocks="1024"]');
  const dash = pool.closest('.bv-dashboard'), player = dash.querySelector('.bv-player');
  const scroller = dash.closest('.jp-WindowedPanel-outer') || document.scrollingElement;
  scroller.scrollTop += pool.getBoundingClientRect().top - scroller.getBoundingClientRect().top + 300;
  return [player.getBoundingClientRect().top, pool.getBoundingClientRect().top, scroller.getBoundingClientRect().top];
}"""

# The big dashboard's pool pane and its tabs: [pool's right, tabs' left, pool's bottom, tabs' top].
PANES = """() => {
  const dash = document.querySelector('svg[data-view="pool"][data-num-blocks="1024"]').closest('.bv-dashboard');
  const pool = dash.querySelector('.bv-panes > :first-child').getBoundingClientRect();
  const tabs = dash.querySelector('.bv-panes > :last-child').getBoundingClientRect();
  return [pool.right, tabs.left, pool.bottom, tabs.top];
}"""

# Panes whose content is wider than they are: [view, scrollWidth, clientWidth] of each.
OVERFLOWING = """() => [...document.querySelectorAll('.bv-pane')].filter(p => p.scrollWidth > p.clientWidth + 1)
  .map(p => [p.querySelector('svg')?.dataset.view, p.scrollWidth, p.clientWidth])"""


SHOWN = "step shown (pool + player)"
REDRAWN = "panes (mapping) redrawn"


def p90(values: list[float]) -> float:
    return quantiles(values, n=10, method="inclusive")[-1]


def write_latencies(latencies: dict[str, list[float]], local: dict[str, list[bool]], load: list[float]):
    """The latencies of each kind (see the module's docstring), how many of those steps the page
    showed at once (`local`: without Python), and the same run's bare widget round trip (on a
    2-core machine shared with other work, the round trip alone varies from 25 to over 100 ms);
    `load`: the machine's 1-minute load average when the run began, and now."""
    figures = {name: {
        "median_ms": round(median(v), 1), "p90_ms": round(p90(v), 1), "max_ms": round(max(v), 1), "steps": len(v),
        **({"shown_at_once": sum(local[name])} if name in local else {}),
        "each_ms": [round(x, 1) for x in v]} for name, v in latencies.items() if len(v) > 1}
    (OUT / "latency.json").write_text(json.dumps({**figures, "load": [*load, round(os.getloadavg()[0], 2)]}, indent=1))
    print("latencies:", figures)


def timed_press(page, cell, n: int, cmd: str, step: int) -> dict:
    """Clicks `cmd` in the player of the pool of n blocks, like a mouse; the timing of `step` shown."""
    page.evaluate(ARM_TIMING, [n, step])
    cell.locator(f'.bv-player button[data-cmd="{cmd}"]').click()
    return page.evaluate("window.bvTiming")


# The pool of n blocks flows in as many columns as its pane has room for (what pool.js asks for).
FITTED = """(n) => {
  const svg = document.querySelector(`svg[data-view="pool"][data-num-blocks="${n}"]`), pane = svg.closest('.bv-pane');
  const wanted = Math.floor((pane.clientWidth - 2 * +svg.dataset.pad) / +svg.dataset.cellStep);
  return Math.min(wanted, n) === +svg.dataset.columns;
}"""


def columns_shown(page, n: int) -> int:
    """The columns the page's pool of n blocks flows in: as many as its pane has room for (pool.js)."""
    return int(page.evaluate(f"""document.querySelector('svg[data-view="pool"][data-num-blocks="{n}"]').dataset.columns"""))


def check(page, sim, n: int, step: int, views: int = 1, selected: int | None = None):
    """The page's pool of n blocks shows `step`, with the classifier's states, exactly as Python draws it
    (in the columns the page has room for)."""
    shown, states = page.evaluate(READ_STATES, n)
    assert shown == str(step)
    assert states == [s.value for s in classify(sim.snapshot(step))], f"{n} blocks, step {step}"
    for _ in range(30):  # a pane whose width changed gets its pool redrawn in the new columns a moment later
        expected = render_view(sim, "pool", step, selected=selected, columns=columns_shown(page, n))
        differences = page.evaluate(POOL_DIFFERENCES, [n, expected])
        if differences == [""] * views:
            break
        page.wait_for_timeout(100)
    assert differences == [""] * views, f"{n}, {step}"


def test_dashboard_in_jupyterlab_matches_the_engine(chromium, lab):  # chromium first: skip before starting lab
    OUT.mkdir(parents=True, exist_ok=True)
    print(f"screenshots: {OUT}")
    load = [round(os.getloadavg()[0], 2)]
    expected = {n: scenario(n) for n in (12, 1024)}
    for sim in expected.values():
        sim.run(STEPS)
    expected[1024].run(LIVE)  # the page's run goes on there when ▶ is pressed at its end
    live = f"1024 blocks, live step (the engine runs): {SHOWN}"
    latencies = {name: [] for name in [*(f"{n} blocks: {kind}" for n in (12, 1024) for kind in (SHOWN, REDRAWN)),
                                       live, "round trip"]}
    local = {name: [] for name in latencies if SHOWN in name}
    with notebook_page(chromium, lab) as page:
        for n in (12, 1024):
            page.wait_for_selector(f'svg[data-view="pool"][data-num-blocks="{n}"]', timeout=180_000)
        for n, sim in expected.items():
            check(page, sim, n, 0)
            moves = [("forward", k) for k in range(1, STEPS + 1)] + [("back", k) for k in range(STEPS - 1, -1, -1)]
            cell = page.locator(f'svg[data-view="pool"][data-num-blocks="{n}"]').locator(
                "xpath=ancestor::div[contains(@class,'jp-Cell')][1]")
            cell.locator('.bv-player select').select_option("0.5")  # while timing ▷ ❚❚, no step is due for 2 s
            # in view before the first timed press, as for a reader: Playwright's click would scroll
            # it in within that press, and JupyterLab then handles the scroll and lays out the cell
            cell.locator('.bv-player button[data-cmd="forward"]').scroll_into_view_if_needed()
            page.evaluate(FRAMES)
            for cmd, k in moves:  # timed alone: the checks' own work would land in the next step's time
                timing = timed_press(page, cell, n, cmd, k)
                latencies[f"{n} blocks: {SHOWN}"].append(timing["shown"])
                latencies[f"{n} blocks: {REDRAWN}"].append(timing["panes"])
                local[f"{n} blocks: {SHOWN}"].append(timing["local"])
                for _ in ("play", "pause"):
                    latencies["round trip"].append(page.evaluate(TOGGLE_AND_WAIT, n))
            for cmd, k in moves:  # as fast as the page shows each step: chained patches sent ahead, or Python
                page.evaluate(STEP_AND_WAIT, [n, cmd, k])
                check(page, sim, n, k)
            if n == 1024:  # at the live end nothing is sent ahead: ▶ asks Python, which runs the engine
                page.evaluate(STEP_AND_WAIT, [n, "last", STEPS])
                for k in range(STEPS + 1, STEPS + LIVE + 1):
                    timing = timed_press(page, cell, n, "forward", k)
                    latencies[live].append(timing["shown"])
                    local[live].append(timing["local"])
                    check(page, sim, n, k)
            write_latencies(latencies, local, load)  # the figures so far, whatever later checks find
            # the player hands the press's focus to JupyterLab once the step is drawn: the cell is active
            assert cell.evaluate("(el) => el.closest('.jp-Cell').classList.contains('jp-mod-active')")
            assert all(local[f"{n} blocks: {SHOWN}"]), local  # every recorded step was shown at once
            assert not any(local[live])
            jump = page.locator(f'svg[data-view="pool"][data-num-blocks="{n}"]').locator(
                "xpath=ancestor::div[contains(@class,'jp-Cell')][1]").locator(".bv-jump")
            jump.fill("3")
            jump.press("Enter")  # Enter jumps at once, inside JupyterLab (which would take the key)
            page.wait_for_function(f"({READ_STATES})({n})[0] === '3'")
            check(page, sim, n, 3)
        page.evaluate(RUN_CELL, "big_dash.pool")  # a second, late view of the same widget: at its step
        page.wait_for_function(f"(a) => ({POOL_DIFFERENCES})(a).join() === ','",
                               arg=[1024, render_view(expected[1024], "pool", 3, columns=columns_shown(page, 1024))],
                               timeout=60_000)
        check(page, expected[1024], 1024, 3, views=2)
        page.evaluate(STEP_AND_WAIT, [1024, "forward", 4])
        check(page, expected[1024], 1024, 4, views=2)
        kv = page.locator('svg[data-view="kv"]')  # the K/V switch: K first, V after a click
        assert "· K ·" in kv.get_attribute("aria-label")
        assert page.locator('.bv-toggle button[data-kv="k"]').get_attribute("aria-pressed") == "true"
        page.locator('.bv-toggle button[data-kv="v"]').click()
        page.wait_for_function("""document.querySelector('svg[data-view="kv"]').ariaLabel.includes('· V ·')""")
        assert page.locator('.bv-toggle button[data-kv="v"]').get_attribute("aria-pressed") == "true"
        small = page.locator('svg[data-view="pool"][data-num-blocks="12"]').locator(
            "xpath=ancestor::div[contains(@class,'jp-Cell')][1]")
        small.locator(".bv-player").focus()  # keyboard: ← steps back
        page.keyboard.press("ArrowLeft")
        page.wait_for_function(f"({READ_STATES})(12)[0] === '2'")
        check(page, expected[12], 12, 2)
        small.locator('svg[data-view="pool"] [data-block-id="3"]').click()  # a click opens the block's detail
        small.locator('.bv-detail[data-block-id="3"]').wait_for(timeout=30_000)
        check(page, expected[12], 12, 2, selected=3)
        small.scroll_into_view_if_needed()
        small.screenshot(path=str(OUT / "dashboard.png"))
        assert page.evaluate(OVERFLOWING) == []
        page.set_viewport_size({"width": 1400, "height": 1000})  # a laptop: every pane fits, nothing scrolls sideways
        page.wait_for_function(f"({FITTED})(12) && (({OVERFLOWING})()).length === 0", timeout=60_000)
        check(page, expected[12], 12, 2, selected=3)
        small.screenshot(path=str(OUT / "dashboard-1400.png"))
        page.set_viewport_size({"width": 1280, "height": 1000})
        pool_right, tabs_left, pool_bottom, tabs_top = page.evaluate(PANES)  # under 1200 px: one above the other
        assert tabs_top >= pool_bottom
        wide = columns_shown(page, 12)
        page.set_viewport_size({"width": 1800, "height": 1000})  # 1200 px and more: side by side
        page.wait_for_function(f"(({PANES})())[1] >= (({PANES})())[0]")
        # side by side, the pool's pane is narrower than stacked at 1280: its cells wrap to it
        page.wait_for_function(f"({FITTED})(12) && (({OVERFLOWING})()).length === 0", timeout=60_000)
        assert columns_shown(page, 12) < wide
        check(page, expected[12], 12, 2, selected=3)
        small.screenshot(path=str(OUT / "dashboard-side-by-side.png"))
        page.set_viewport_size({"width": 1280, "height": 1000})
        player_top, pool_top, top = page.evaluate(SCROLL_TO_POOL)
        assert pool_top < top and top - 1 <= player_top < top + 60  # scrolled past, the player still in view
        pinned = page.locator('svg[data-view="pool"][data-num-blocks="20"]')  # opened at step 1, stays there
        assert pinned.get_attribute("data-step") == "1"
        finished = scenario(20)
        finished.run()
        page.evaluate(RUN_CELL, "pinned_sim.run()\nprint('ran to', pinned_sim.last_step, 'showing', pinned.step)")
        page.wait_for_function(f"document.body.innerText.includes('ran to {finished.last_step} showing 1')",
                               timeout=60_000)
        assert pinned.get_attribute("data-step") == "1"
    assert (OUT / "dashboard.png").stat().st_size > 10_000
