"""Views over real traffic (issue 28, item 5): a window of a trace replayed with a recording at a
pool sized like a GPU's, then drawn: the traffic view, and the dashboard opened on the last step
and stepped back.

    .venv/bin/python bench/traffic_views.py [--trace conversation] [--minutes 10] [--blocks 65536]
                                            [--block-size 16] [--tokens-per-id 32] [--steps 10]

Prints the time of each part and the peak Python memory (tracemalloc) of the replay, and the
blocks per state where the dashboard stands: a pool's picture folds runs of idle free blocks, but
ten minutes of traffic leave the pool full of cached blocks, which do not fold, so a step costs
what classifying every block costs (bench/views.py: the goal of a step <= 10 ms is at 1024 blocks).
"""
import argparse
import time
import tracemalloc
from statistics import median

from blockviz import traffic
from blockviz.views.dashboard import Dashboard
from blockviz.states import BlockState, count_states
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
    steps = []
    for _ in range(min(args.steps, board.step)):
        start = time.perf_counter()
        board.step = board.step - 1
        steps.append(time.perf_counter() - start)
    if steps:
        print(f"dashboard step back ({len(steps)} steps, each with the pictures sent ahead): "
              f"median {1000 * median(steps):.0f} ms, max {1000 * max(steps):.0f} ms")
    snapshot = run.engine.frames[board.step].snapshot
    counts = count_states(snapshot)
    print("  blocks at that step: " + ", ".join(f"{s.value} {counts[s]:,}" for s in BlockState))
    timed("  one pool picture (every block not folded is classified)", lambda: pool_picture(snapshot))


if __name__ == "__main__":
    main()
