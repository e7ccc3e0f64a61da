"""Time to move the designs view (views/designs_widget.py) from one request to another at a GPU-sized
pool: the same few hundred requests through nano-vllm and SGLang (designs_after.compare), then
`view.selected = i` in an event loop, as in a kernel (each design's cache after request i drawn:
nano-vllm's pool patched from the one shown, SGLang's tree and token pool, the summary; then, in
later turns of the loop, requests i - 1 and i + 1 sent ahead)
stepping ▶ through the requests and jumping at random among them. Prints the median, p90 and max
per move of the request's own answer (what a jump waits for) and of Python's whole answer (a page
shows a ▶ at once from what was sent ahead, so this is how soon the next ▶ is ready, not what the
learner waits for; the views' goal: p90 <= 50 ms from the
click to the step shown), the kB each move sends, and what compare and opening the view cost. Also prints the browser's
latencies (median, p90, max from the click to the request drawn) measured by the last
`pytest tests/browser/test_designs.py` run (out/browser/designs_latency.json).

    PYTHONPATH=. .venv/bin/python bench/designs_view.py [--blocks 65536] [--requests 300] [--moves 60]

The requests: families sharing a long system prompt, and follow-ups that repeat an earlier request
with its reply (the echo rule's output) and a new question, as a chat does.
"""
import argparse
import asyncio
import json
import random
import tracemalloc
from pathlib import Path
from statistics import median
from time import perf_counter

from blockviz.designs_after import compare
from blockviz.views.designs_widget import DesignsView
from blockviz.views.render_after import render_after

LETTERS = "abcdefghij "


def requests(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    text = lambda lo, hi: "".join(rng.choice(LETTERS) for _ in range(rng.randint(lo, hi)))
    systems = [text(200, 800) for _ in range(6)]
    prompts: list[str] = []
    for _ in range(n):
        if prompts and rng.random() < 0.3:   # a follow-up: an earlier turn, its reply, a new question
            earlier = rng.choice(prompts)
            prompts.append(earlier + earlier[:8] + text(20, 120))
        else:
            prompts.append(rng.choice(systems) + text(50, 400))
    return prompts


def percentiles(ms: list[float]) -> str:
    ms = sorted(ms)
    p90 = ms[min(len(ms) - 1, int(0.9 * len(ms)))]
    return f"median {median(ms):.1f} ms, p90 {p90:.1f} ms, max {ms[-1]:.1f} ms over {len(ms)} moves"


def moves(view: DesignsView, order: list[int]) -> tuple[list[float], list[float], list[int]]:
    """Each move as in a kernel (an event loop runs): ms until the request's own answer is out (its
    pool patch set: what a jump waits for), ms until its neighbours are sent ahead too, and the
    characters sent."""
    answer: list[float] = []

    def answered_now(_change) -> None:
        answer.append(perf_counter())
    view.observe(answered_now, names=["patch"])

    async def run():
        answered, whole, sent = [], [], []
        for i in order:
            start = perf_counter()
            view.selected = i
            answered.append((answer[-1] - start) * 1000)
            while view.drawing_ahead:
                await asyncio.sleep(0)
            whole.append((perf_counter() - start) * 1000)
            sent.append(len(view.patch) + len(view.summary) + len(view.sglang) + len(view.ahead))
        return answered, whole, sent
    try:
        return asyncio.run(run())
    finally:
        view.unobserve(answered_now, names=["patch"])   # the next moves() times its own


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--blocks", type=int, default=65536)
    parser.add_argument("--block-size", type=int, default=16)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    prompts = requests(args.requests, args.seed)
    tracemalloc.start()
    start = perf_counter()
    comparison = compare(prompts, args.blocks, args.block_size, max_tokens=8)
    seconds = perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    differ = sum(comparison.differs(i)[0] != comparison.differs(i)[1] for i in range(len(comparison)))
    print(f"{args.requests} requests, {sum(map(len, comparison.prompts)):,} prompt tokens, pool of {args.blocks:,} "
          f"blocks of {args.block_size}; hits differ in {differ} requests")
    print(f"compare (both designs served, caches kept after each request): {seconds:.2f} s, peak {peak:.0f} MB traced")
    start = perf_counter()
    view = DesignsView(comparison, selected=len(comparison) - 1)
    print(f"open the view (table, the last request's pictures, the pool whole): {perf_counter() - start:.2f} s, "
          f"{len(view.full['svg']) / 1000:.0f} kB of pool, {len(view.table) / 1000:.0f} kB of table")
    rng = random.Random(args.seed)
    last = len(comparison) - 1
    answered, whole, sent = moves(view, [0] + list(range(1, min(args.moves, last) + 1)))
    print(f"▶ through requests, Python's whole answer (with the neighbours): {percentiles(whole[1:])}; "
          f"median {median(sent[1:]) / 1000:.0f} kB sent")
    jumps: list[int] = []
    for j in [rng.randrange(len(comparison)) for _ in range(args.moves)]:
        if j != (jumps[-1] if jumps else view.selected):   # each one a move
            jumps.append(j)
    answered, whole, sent = moves(view, jumps)
    print(f"random jumps, the request's own answer (what a jump waits for): {percentiles(answered)}")
    print(f"random jumps, Python's whole answer (with the neighbours): {percentiles(whole)}; "
          f"median {median(sent) / 1000:.0f} kB sent")
    times = []
    for i in [rng.randrange(len(comparison)) for _ in range(10)]:
        start = perf_counter()
        render_after(comparison, i)
        times.append((perf_counter() - start) * 1000)
    print(f"render_after alone, nothing kept: {percentiles(times)}")
    browser = Path(__file__).resolve().parents[1] / "out" / "browser" / "designs_latency.json"
    if browser.exists():   # written by tests/browser/test_designs.py
        runs = json.loads(browser.read_text())
        load, pool = runs.pop("load"), runs.pop("pool")
        print(f"browser, ms from the click to the request drawn (last tests/browser/test_designs.py run: {pool}; "
              f"load average {' to '.join(map(str, load))}):")
        for name, f in runs.items():
            print(f"  {name}: median {f['median_ms']} ms, p90 {f['p90_ms']} ms, max {f['max_ms']} ms over {f['moves']} moves")
    else:
        print("browser latencies: run `pytest tests/browser/test_designs.py` first (writes out/browser/designs_latency.json)")


if __name__ == "__main__":
    main()
