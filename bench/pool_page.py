"""The browser's own cost of a pool step: the page's patch applied in Chromium, without JupyterLab
or the kernel (what a step sent ahead costs once the press arrives).

    .venv/bin/python bench/pool_page.py [--blocks 1024] [--repeats 8]

Draws the browser test's scenario (tests/browser/browser_scenario.py) step 0 with js/pool_patch.js
in Debian's chromium (headless, through Playwright), then applies the patch of each step 1..6 in
turn, as it arrives and prepared ahead (pool_patch.prepare, as the pool page does for the patches
sent ahead), and prints per step, median and best of --repeats: the applyPatch call, the style and
layout it causes (forced by getBoundingClientRect) and the time to the end of the next frame (a
task queued from requestAnimationFrame), in ms, with the cells the patch changes.
"""
import argparse
import sys
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "browser")]

from browser_scenario import scenario  # noqa: E402
from labserver import FLAGS, find_chromium  # noqa: E402

from blockviz.views.pool_patch import pool_patch  # noqa: E402
from blockviz.views.render_pool import pool_picture  # noqa: E402

STEPS = 6

TIME_PATCH = """([patch, ready]) => new Promise((resolve) => {
  if (ready) prepare(document, patch);
  const t0 = performance.now();
  applyPatch(window.page, patch, { motion: true });
  const t1 = performance.now();
  window.page.svg.getBoundingClientRect();
  const t2 = performance.now();
  requestAnimationFrame(() => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve([t1 - t0, t2 - t1, performance.now() - t0]);
    channel.port2.postMessage(null);
  });
})"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=8)
    args = parser.parse_args()
    chromium = find_chromium()
    if chromium is None:
        sys.exit("chromium not found (tests/browser/install_chromium.sh installs it)")
    from playwright.sync_api import sync_playwright
    sim = scenario(args.blocks)
    sim.run(STEPS)
    pictures = [pool_picture(sim.snapshot(step), sim.events(step)) for step in range(STEPS + 1)]
    patches = [{"base": k, "version": k + 1, **pool_patch(pictures[k - 1], pictures[k])} for k in range(1, STEPS + 1)]
    module = (ROOT / "blockviz" / "views" / "js" / "pool_patch.js").read_text().replace("export ", "")
    css = (ROOT / "blockviz" / "views" / "js" / "views.css").read_text()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.set_content(f"<style>{css}</style><div class='bv-pane' style='max-height:75vh'></div>")
        page.add_script_tag(content=module + "\nObject.assign(window, { applyPatch, prepare, showFull });")
        times: dict[tuple[int, bool], list[list[float]]] = {}
        for _ in range(args.repeats):
            for ready in (False, True):
                page.evaluate("(full) => { window.page = showFull(document.querySelector('.bv-pane'), full); }",
                              {"version": 1, "svg": pictures[0].svg()})
                page.wait_for_timeout(200)
                for step, patch in enumerate(patches, start=1):
                    times.setdefault((step, ready), []).append(page.evaluate(TIME_PATCH, [patch, ready]))
                    page.wait_for_timeout(150)
        browser.close()
    print(f"{args.blocks} blocks, ms per step, median (best) of {args.repeats}: apply | style+layout | to the frame's end")
    for (step, ready), runs in times.items():
        parts = [f"{median(r[i] for r in runs):6.1f} ({min(r[i] for r in runs):5.1f})" for i in range(3)]
        print(f"  step {step} ({len(patches[step - 1]['cells']):>3} cells){', prepared' if ready else '':10}: "
              + " | ".join(parts))


if __name__ == "__main__":
    main()
