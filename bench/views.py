"""Python-side cost of one step in the views: what a Dashboard does when the cursor moves.

    .venv/bin/python bench/views.py [--blocks 64 1024 4096 65536] [--steps 30] [--workload BLOCKS]

Also prints the browser's latencies (median, p90, max) measured by the last
`pytest tests/browser/test_dashboard.py` run: "step shown" from the click to the pool and the
player showing the step (the page steps at once from what Python sent ahead, views/ahead.py),
"panes" to the mapping pane that Python redraws; the goal is a p90 of the step shown <= 50 ms at
1024 blocks.

Records a busy Simulator (requests sharing prefixes, prefill then decode), then times a
Dashboard's step (dashboard.step = step + 1: what ◀ ▶ do; the pool and the mapping tab redraw,
then the pool sends the patches of the steps around ahead) over recorded steps: first while each
frame is replayed on demand, then with frames built, then without sending ahead (the same run's
baseline); then each renderer alone, the pool widget's per-step work (picture, patch against the
previous step, JSON) with the size of what it sends, and of what it sends ahead, and live steps
that run the engine; last, the KV view's index over a pool as large as a GPU's. Goal: <= 10 ms per
step at 1024 blocks before sending ahead. At 65 536 blocks (a pool sized from GPU memory) long
runs of idle free or cached-free blocks fold, so a step costs about what the other blocks cost; --workload 4096
keeps the requests of 4096 blocks.
"""
import argparse
import json
import random
import tracemalloc
from pathlib import Path
from statistics import median
from time import perf_counter
from types import SimpleNamespace

import numpy as np

from blockviz import Simulator
from blockviz.views.dashboard import Dashboard
from blockviz.views.pool_patch import pool_patch
from blockviz.views.render_pool import pool_picture
from blockviz.views.render_view import render_view
from blockviz.views.recording_index import KVIndex


def busy_simulator(num_blocks: int, block_size: int = 16, seed: int = 0, workload: int | None = None) -> Simulator:
    """About as many requests as fill the pool (or a pool of `workload` blocks), in families that
    share a prefix."""
    rng = random.Random(seed)
    sim = Simulator(num_blocks=num_blocks, block_size=block_size, max_num_seqs=256, max_num_batched_tokens=8192)
    prefixes = ["".join(rng.choice("abcdefgh") for _ in range(3 * block_size)) for _ in range(8)]
    tokens_per_request = 6 * block_size
    for i in range(max(2, (workload or num_blocks) * block_size // tokens_per_request)):
        tail = "".join(rng.choice("abcdefgh") for _ in range(tokens_per_request - 3 * block_size - 8))
        sim.add(rng.choice(prefixes) + tail, max_tokens=64)
    return sim


def time_per_call(fn, repeats: int) -> float:
    times = []
    for k in range(repeats):
        start = perf_counter()
        fn(k)
        times.append(perf_counter() - start)
    return median(times) * 1000


def pool_patches(sim, last: int) -> tuple[float, float, float]:
    """The pool widget's work per step: (median ms, median kB sent, kB of the whole pool)."""
    shown = [pool_picture(sim.snapshot(0), sim.events(0))]
    sizes = []

    def step(k: int):
        new = pool_picture(sim.snapshot(1 + k), sim.events(1 + k))
        sizes.append(len(json.dumps(pool_patch(shown[0], new))))
        shown[0] = new

    ms = time_per_call(step, last)
    return ms, median(sizes) / 1000, len(json.dumps(shown[0].svg())) / 1000


def bench(num_blocks: int, steps: int, workload: int | None = None) -> dict[str, float]:
    sim = busy_simulator(num_blocks, workload=workload)
    sim.run(max_steps=steps + 1)
    dashboard = Dashboard(sim, step=0)
    last = min(steps, sim.last_step)

    def step_to(step: int):
        dashboard.step = step

    # a live session replays a step's frame the first time it is shown, then keeps it
    result = {"dashboard step, frame replayed": time_per_call(lambda k: step_to(1 + k), last),
              "dashboard step": time_per_call(lambda k: step_to(1 + (k + 1) % last), last)}
    ahead_sizes = []
    dashboard.pool.observe(lambda change: ahead_sizes.append(len(change["new"])), "ahead")
    step_to(1)
    time_per_call(lambda k: step_to(1 + (k + 1) % last), last)
    result["ahead kB"] = median(ahead_sizes) / 1000
    pools, dashboard.player.ahead_views = dashboard.player.ahead_views, []  # the step as before sending ahead
    result["dashboard step, nothing sent ahead"] = time_per_call(lambda k: step_to(1 + (k + 1) % last), last)
    dashboard.player.ahead_views = pools
    for view in ("pool", "events", "mapping", "chain"):
        result[view] = time_per_call(lambda k: render_view(sim, view, 1 + k % last, index=dashboard.chain.index), last)
    result["pool patch"], result["patch kB"], result["whole pool kB"] = pool_patches(sim, last)
    dashboard.follow = True
    result["live step (engine + replay + views)"] = time_per_call(lambda k: sim.step(), 10)
    return result


def kv_at_gpu_scale(num_blocks: int = 70_000, block_size: int = 16, head_dim: int = 128,
                    steps: int = 40) -> dict[str, float]:
    """The KV view's index over a pool the size Qwen3-0.6B gets on an H200 (random values): 64
    requests of 40 blocks, a 200-token prefill, then one token each per step. Times the first
    render of the last step and a seek one step back (the 64 rows the view draws), and the memory."""
    rng = np.random.default_rng(0)
    starts = np.arange(64) * 40 * block_size
    frames = [SimpleNamespace(payload=None)]
    for s in range(1, steps + 1):
        slots = (starts[:, None] + np.arange(200)).ravel() if s == 1 else starts + 198 + s
        frames.append(SimpleNamespace(payload={"kv": {
            "layer": 0, "head": 0, "slots": slots.tolist(),
            **{kv: rng.normal(size=(len(slots), head_dim)).astype(np.float16) for kv in ("k", "v")}}}))
    rows = sorted({int(b) for b in starts // block_size})
    index = KVIndex(num_blocks, block_size)
    tracemalloc.start()
    result = {"first render ms": time_per_call(lambda k: index.values(frames, steps, "k", rows), 1),
              "seek back ms": time_per_call(lambda k: index.values(frames, steps - 1, "k", rows), 1)}
    result["peak MB"] = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, nargs="+", default=[64, 1024, 4096, 65536])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--workload", type=int, help="requests sized for a pool of this many blocks, whatever the "
                        "pool's size (e.g. --blocks 65536 --workload 4096: a GPU-sized pool, fewer requests)")
    args = parser.parse_args()
    print("median ms per step, Python side (and kB the pool widget sends per step)")
    for num_blocks in args.blocks:
        figures = bench(num_blocks, args.steps, args.workload)
        print(f"{num_blocks:>5} blocks: " + " | ".join(f"{name} {ms:.2f}" for name, ms in figures.items()))
    figures = kv_at_gpu_scale()
    print("KV index, 70 000 blocks of 16 slots, head_dim 128: " + " | ".join(f"{k} {v:.0f}" for k, v in figures.items()))
    browser = Path(__file__).resolve().parents[1] / "out" / "browser" / "latency.json"
    if browser.exists():  # written by tests/browser/test_dashboard.py: a click -> the step shown in chromium
        print("browser latencies, ms from the click (last pytest tests/browser/test_dashboard.py run; "
              "goal: p90 of the step shown <= 50 ms at 1024 blocks):")
        runs = json.loads(browser.read_text())
        if "load" in runs:  # the 1-minute load average as the test began and as it wrote these
            print("  load average: " + " to ".join(map(str, runs.pop("load"))))
        for name, figures in runs.items():
            at_once = f", {figures['shown_at_once']} shown at once" if "shown_at_once" in figures else ""
            print(f"  {name}: median {figures['median_ms']} ms, p90 {figures.get('p90_ms', '?')} ms, "
                  f"max {figures['max_ms']} ms over {figures['steps']} steps{at_once}")
        if "round trip" in runs:  # the same run's baseline: a press answered with one small change, no drawing
            base = runs["round trip"]["median_ms"]
            print("  / round trip (medians): " + " | ".join(
                f"{name} {figures['median_ms'] / base:.2f}" for name, figures in runs.items() if name != "round trip"))
    else:
        print("browser latencies: run `pytest tests/browser/test_dashboard.py` first (writes out/browser/latency.json)")


if __name__ == "__main__":
    main()
