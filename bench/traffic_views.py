"""Views over real traffic (issue 28, item 5): a window of a trace replayed with a recording at a
pool sized like a GPU's, then drawn: the traffic view, and the dashboard opened on the last step
and stepped back.

    .venv/bin/python bench/traffic_views.py [--trace conversation] [--minutes 10] [--blocks 65536]
                                            [--block-size 16] [--tokens-per-id 32] [--steps 10]

Prints the time of each part and the peak Python memory (tracemalloc) of the replay, and the
blocks per state where the dashboard stands: ten minutes of traffic leave the pool full of
cached-free blocks, whose idle runs fold into one cell each like free ones (render_pool.fold_runs),
and the states come from the snapshot's columns (recording/columns.py), not block by block. Two
baselines, in the same run, the same steps: folding off (every block its own cell), and folding
off with every block's state classified one by one (states.classify_block), the way the picture
was drawn before cached-free runs folded. Goal: a step back well under 100 ms.
"""
import argparse
import time
import tracemalloc
from statistics import median

import numpy as np

from blockviz import traffic
from blockviz.views.dashboard import Dashboard
from blockviz.states import STATES, BlockState, classify_block, count_states
from blockviz.views import render_pool
from blockviz.views.render_pool import pool_picture
from blockviz.views.render_traffic import render_traffic


def timed(label: str, f):
    start = time.perf_counter()
    out = f()
    print(f"{label}: {time.perf_counter() - start:.2f} s")
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trace", default="conversation")
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--blocks", type=int, default=65_536)
    parser.add_argument("--block-size", type=int, default=16)
    parser.add_argument("--tokens-per-id", type=int, default=32)
    parser.add_argument("--steps", type=int, default=10, help="dashboard steps timed back from the last")
    args = parser.parse_args()
    window = traffic.load(args.trace).window(0, 60 * args.minutes)
    print(f"{window.name}: {len(window):,} requests; pool {args.blocks:,} blocks of {args.block_size} "
          f"(tokens per id {args.tokens_per_id})")
    tracemalloc.start()
    run = timed("replay with a recording", lambda: traffic.replay(
        window, args.blocks * args.block_size, args.block_size, tokens_per_id=args.tokens_per_id, record=True))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"  {run}\n  peak Python memory {peak / 2**20:,.0f} MiB")
    html = timed("traffic view (first draw)", lambda: render_traffic(run))
    print(f"  {len(html) / 1024:,.0f} KiB of HTML")
    board = timed("dashboard at the last step (first draw)", lambda: Dashboard(run.engine))
    folded = steps_back(board, args.steps)
    snapshot = run.engine.frames[board.step].snapshot
    counts = count_states(snapshot)
    print("  blocks at that step: " + ", ".join(f"{s.value} {counts[s]:,}" for s in BlockState))
    picture = timed("  one pool picture, drawn whole", lambda: pool_picture(snapshot))
    print(f"  {len(picture.cells):,} cells for {snapshot.num_blocks:,} blocks")
    unfolded = baseline(run, args.steps, "folding off", FOLD_ABOVE=args.blocks)
    one_by_one = baseline(run, args.steps, "folding off, states block by block", FOLD_ABOVE=args.blocks,
                          state_codes=lambda snap: np.array([STATES.index(classify_block(snap, i))
                                                             for i in range(snap.num_blocks)], np.int8))
    for name, times in (("folding off", unfolded), ("folding off, states block by block", one_by_one)):
        if folded and times:
            print(f"a step back takes {median(folded) / median(times):.3f} of the time of {name} "
                  f"({median(times) / median(folded):.1f} times faster)")


def baseline(run, n: int, label: str, **patched) -> list[float]:
    """Steps back on a new dashboard with render_pool's `patched` names replaced."""
    kept = {name: getattr(render_pool, name) for name in patched}
    for name, value in patched.items():
        setattr(render_pool, name, value)
    try:
        return steps_back(Dashboard(run.engine), n, label)
    finally:
        for name, value in kept.items():
            setattr(render_pool, name, value)

def steps_back(board: Dashboard, n: int, label: str = "") -> list[float]:
    """The times of `n` steps back from where the dashboard stands, each with the pictures sent ahead."""
    steps = []
    for _ in range(min(n, board.step)):
        start = time.perf_counter()
        board.step = board.step - 1
        steps.append(time.perf_counter() - start)
    if steps:
        print(f"dashboard step back{f' ({label})' if label else ''} ({len(steps)} steps, each with the pictures "
              f"sent ahead): median {1000 * median(steps):.0f} ms, max {1000 * max(steps):.0f} ms")
    return steps

if __name__ == "__main__":
    main()
