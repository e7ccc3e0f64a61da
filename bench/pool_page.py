"""The browser's own cost of a pool step: the page's patch applied in Chromium, without JupyterLab
or the kernel (what a step sent ahead costs once the press arrives).

    .venv/bin/python bench/pool_page.py [--blocks 1024] [--repeats 8] [--versus DIR ...] [--output-area]

Draws the browser test's scenario (tests/browser/browser_scenario.py) step 0 with js/pool_patch.js
in Debian's chromium (headless, through Playwright), then applies the patches of the browser test's
presses in turn (forward to step 6, back to 0), as they arrive and prepared ahead (pool_patch.prepare, as the pool page does for the patches
sent ahead), and prints per step, median and best of --repeats: the applyPatch call, the style and
layout it causes (forced by getBoundingClientRect) and the time to the end of the next frame (a
task queued from requestAnimationFrame), in ms, with the cells the patch changes.

--versus DIR ... measures other copies of the project too (its pictures, patches, pool_patch.js and
CSS; e.g. `git archive HEAD~1 blockviz tests/browser | tar -x -C DIR`), each in a page of its own in
the same browser, all taking turns at every repeat so that the machine's load falls on all alike.

--output-area puts the pool where JupyterLab does, inside an output area's elements beside a
sticky player, so that the CSS rules on those (views.css) apply as in a notebook.
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "browser")]

from labserver import FLAGS, find_chromium  # noqa: E402

STEPS = 6

# run with the project copy's root as argv[1]: what its page shows, as JSON on stdout
PAGE_DATA = """
import json, sys
from pathlib import Path
root = Path(sys.argv[1])
sys.path[:0] = [str(root), str(root / "tests" / "browser")]
from browser_scenario import scenario
from blockviz.views.pool_patch import pool_patch
from blockviz.views.render_pool import pool_picture
blocks, steps = int(sys.argv[2]), int(sys.argv[3])
sim = scenario(blocks)
sim.run(steps)
pictures = [pool_picture(sim.snapshot(step), sim.events(step)) for step in range(steps + 1)]
moves = [*range(steps + 1), *range(steps - 1, -1, -1)]  # forward to the last step, then back to 0
js = root / "blockviz" / "views" / "js"
print(json.dumps({
    "svg": pictures[0].svg(),
    "patches": [{"base": k, "version": k + 1, "step": b, **pool_patch(pictures[a], pictures[b])}
                for k, (a, b) in enumerate(zip(moves, moves[1:]), start=1)],
    "module": (js / "pool_patch.js").read_text().replace("export ", ""),
    "css": (js / "views.css").read_text()}))
"""

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
    parser.add_argument("--output-area", action="store_true", help="the pool inside JupyterLab's output area")
    parser.add_argument("--versus", type=Path, nargs="*", default=[],
                        help="other copies of the project to measure in turn")
    args = parser.parse_args()
    chromium = find_chromium()
    if chromium is None:
        sys.exit("chromium not found (tests/browser/install_chromium.sh installs it)")
    from playwright.sync_api import sync_playwright
    variants = {"this tree": ROOT, **{f"versus {root}": root for root in args.versus}}
    data = {name: json.loads(subprocess.run([sys.executable, "-c", PAGE_DATA, str(root), str(args.blocks), str(STEPS)],
                                            check=True, capture_output=True, text=True).stdout)
            for name, root in variants.items()}
    pane = "<div class='bv-pane' style='max-height:75vh'></div>"
    if args.output_area:
        pane = ("<div class='jp-OutputArea'><div class='jp-OutputArea-child'><div class='jp-OutputArea-output'>"
                f"<div class='widget-box'><div class='bv-sticky'>player</div>{pane}</div></div></div></div>")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=FLAGS)
        pages = {name: browser.new_page(viewport={"width": 1280, "height": 1000}) for name in variants}
        for name, page in pages.items():
            page.set_content(f"<style>{data[name]['css']}</style>" + pane)
            page.add_script_tag(content=data[name]["module"]
                                + "\nObject.assign(window, { applyPatch, prepare, showFull });")
        times: dict[tuple[str, int, bool], list[list[float]]] = {}
        for _ in range(args.repeats):
            for name, page in pages.items():
                page.bring_to_front()
                for ready in (False, True):
                    page.evaluate("(full) => { window.page = showFull(document.querySelector('.bv-pane'), full); }",
                                  {"version": 1, "svg": data[name]["svg"]})
                    page.wait_for_timeout(200)
                    for move, patch in enumerate(data[name]["patches"]):
                        times.setdefault((name, move, ready), []).append(page.evaluate(TIME_PATCH, [patch, ready]))
                        page.wait_for_timeout(150)
        browser.close()
    print(f"{args.blocks} blocks, ms per step, median (best) of {args.repeats}: apply | style+layout | to the frame's end")
    for (name, move, ready), runs in times.items():
        if move == 0 and not ready:
            print(f"{name}:")
        parts = [f"{median(r[i] for r in runs):6.1f} ({min(r[i] for r in runs):5.1f})" for i in range(3)]
        patch = data[name]["patches"][move]
        to = f"{'forward' if move < STEPS else 'back'} to {patch['step']}"
        print(f"  {to:>12} ({len(patch['cells']):>3} cells){', prepared' if ready else '':10}: " + " | ".join(parts))


if __name__ == "__main__":
    main()
