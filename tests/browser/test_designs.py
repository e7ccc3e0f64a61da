"""The designs view in a real browser: a notebook in JupyterLab shows show(prompts, "designs") over a
GPU-sized pool (65,536 blocks); chromium steps ▶ through the requests and jumps among them by their
rows (a ▶ pressed once Python has answered the one before, so the next request is there ahead),
and after each move the page must show that request: nano-vllm's pool at the step it finished,
its blocks marked as Python marks them (and drawn in the mark's colour by designs.css), SGLang's tree
and token pool. Saves a screenshot in out/browser/designs.png and the latencies (median, p90, max
from the click to the request drawn) in out/browser/designs_latency.json, which bench/designs_view.py
prints.

Run alone: .venv/bin/python -m pytest tests/browser/test_designs.py
(BLOCKVIZ_DESIGNS_REQUESTS=300 before it: as many requests as the bench serves)
"""
import json
import os
import random
import sys
from pathlib import Path
from statistics import median

import nbformat
import pytest

from labserver import jupyterlab, notebook_page

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "out" / "browser"
sys.path[:0] = [str(REPO), str(REPO / "bench")]
# BLOCKVIZ_DESIGNS_REQUESTS=300 measures at bench/designs_view.py's setting (the suite keeps 120: quicker)
REQUESTS = int(os.environ.get("BLOCKVIZ_DESIGNS_REQUESTS", 120))
BLOCKS, BLOCK_SIZE, STEPS, JUMPS = 65536, 16, 25, 15

CELL = """\
import sys
sys.path[:0] = [{repo!r}, {bench!r}]
from designs_view import requests
from blockviz.views import show
show(requests({n}), "designs", num_blocks={blocks}, block_size={bs}, max_tokens=8)"""

# {shown, answered} in ms from the click: shown, the request drawn (the summary names it and
# nano-vllm's pool shows its step), up to the next frame; answered, Python has sent the request
# after it ahead (`next`; null: nothing to wait for), so a ▶ then shows it at once
MOVE_AND_WAIT = """([selector, request, step, next]) => new Promise((resolve, reject) => {
  const view = document.querySelector('.bv-designs-view');
  const shown = () => view.querySelector('.bv-designs-summary')?.dataset.request === String(request)
    && view.querySelector('[data-design="nano-vllm"] svg')?.dataset.step === String(step);
  const answered = () => next === null || (view.dataset.ahead || '').split(' ').includes(String(next));
  let t0 = null, drawn = null;
  const check = () => {
    if (t0 === null) return;
    if (drawn === null && shown()) {
      drawn = -1;
      requestAnimationFrame(() => { drawn = performance.now() - t0; check(); });
    }
    if (drawn > 0 && answered()) {
      observer.disconnect();
      resolve({ shown: drawn, answered: performance.now() - t0 });
    }
  };
  const observer = new MutationObserver(check);
  observer.observe(view, { subtree: true, childList: true, attributeFilter: ['data-step', 'data-request', 'data-ahead'] });
  setTimeout(() => { observer.disconnect(); reject(new Error('request ' + request + ' not shown')); }, 60000);
  t0 = performance.now();
  view.querySelector(selector).click();
  check();
})"""

MARKS = """() => Object.fromEntries([...document.querySelectorAll(
  '.bv-designs-view [data-design="nano-vllm"] g[data-block-id][data-mark]')].map((g) => [g.dataset.blockId, g.dataset.mark]))"""

STROKE = """(mark) => {
  const rect = document.querySelector(`.bv-designs-view [data-design="nano-vllm"] g[data-mark="${mark}"] > rect`);
  return rect && getComputedStyle(rect).stroke;
}"""


# whether the first marked tree row lies within SGLang's column as scrolled (null: none drawn)
FIRST_MARK_SHOWN = """() => {
  const side = document.querySelector('.bv-designs-view div[data-design="sglang"]');
  const row = side.querySelector('.bv-radix-node[data-mark]');
  if (!row) return null;
  const a = side.getBoundingClientRect(), b = row.getBoundingClientRect();
  return b.top >= a.top && b.bottom <= a.bottom;
}"""


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


@pytest.fixture
def lab(tmp_path):
    cell = CELL.format(repo=str(REPO), bench=str(REPO / "bench"), n=REQUESTS, blocks=BLOCKS, bs=BLOCK_SIZE)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell)])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    (tmp_path / "root").mkdir()
    nbformat.write(notebook, tmp_path / "root" / "designs.ipynb")
    with jupyterlab(tmp_path / "root", tmp_path) as url:
        yield url.format(notebook="designs.ipynb")


def test_the_designs_view_follows_each_move_in_jupyterlab(chromium, lab):
    from designs_view import requests
    from blockviz.designs_after import compare
    from blockviz.views.render_after import render_after
    comparison = compare(requests(REQUESTS), BLOCKS, BLOCK_SIZE, max_tokens=8)
    OUT.mkdir(parents=True, exist_ok=True)
    load = [round(os.getloadavg()[0], 2)]
    rng = random.Random(0)
    moves = [('button[aria-label="next request"]', i) for i in range(1, STEPS + 1)]
    moves += [(f'tr[data-request="{i}"] td', i) for i in (rng.randrange(REQUESTS) for _ in range(JUMPS))]
    latencies: dict[str, list[float]] = {"next request": [], "next request, answered": [], "jump by row": []}
    with notebook_page(chromium, lab) as page:
        page.wait_for_selector('.bv-designs-view[data-ahead="1"] [data-design="nano-vllm"] svg[data-view="pool"]',
                               timeout=300_000)
        for selector, i in moves:
            stepping = selector.startswith("button")
            ms = page.evaluate(MOVE_AND_WAIT, [selector, i, comparison.nano_steps[i],
                                               i + 1 if stepping and i + 1 < REQUESTS else None])
            latencies["next request" if stepping else "jump by row"].append(ms["shown"])
            if stepping:
                latencies["next request, answered"].append(ms["answered"])
            picture = render_after(comparison, i)
            expected = {str(cell.key): cell.attrs["data-mark"] for cell in picture.pool.cells if "data-mark" in cell.attrs}
            assert page.evaluate(MARKS) == expected, f"request {i}"
        assert page.evaluate(STROKE, "hit") == "rgb(0, 114, 178)"   # designs.css: the hit blue
        assert page.evaluate(FIRST_MARK_SHOWN) is not False   # SGLang's column scrolled to the request's first node
        page.locator(".bv-designs-view").screenshot(path=str(OUT / "designs.png"))
    figures = {name: {"median_ms": round(median(v), 1), "p90_ms": round(p90(v), 1), "max_ms": round(max(v), 1),
                      "moves": len(v)} for name, v in latencies.items()}
    (OUT / "designs_latency.json").write_text(json.dumps(
        {**figures, "pool": f"{BLOCKS} blocks of {BLOCK_SIZE}, {REQUESTS} requests",
         "load": [*load, round(os.getloadavg()[0], 2)]}, indent=1))
