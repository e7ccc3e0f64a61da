"""Serving traces through nano-vllm's engine: the shipped traces' infinite-cache hit rates beside
the Mooncake paper's Table 2, its Figure 9 claims checked, and the speed and memory of a whole
replay (issue 28, item 8: the conversation trace at block size 512 and a 50M-token pool in
<= 2 minutes on one core and <= 2 GB; at block size 32 in <= 10 minutes).

    .venv/bin/python bench/traffic.py [--skip-claims] [--skip-speed] [--small-blocks] [--profile] [--jobs N]

Each speed figure is one replay in a fresh process (its peak memory is that process's maxrss; its
CPU time is the one core it runs on, the fair figure on a shared machine; --profile adds a run
under cProfile, slower, for where the time goes).
"""
import argparse
import cProfile
import io
import pstats
import resource
import subprocess
import sys
import time

from blockviz import traffic
from blockviz.traffic.curves import capacity_curve

PAPER_CACHE_RATIO = {"conversation": 0.40, "synthetic": 0.66}   # Mooncake (FAST '25), Table 2


def maxima():
    print("## Infinite-cache hit rate (trace.theoretical_hit_rate()) beside the paper's Table 2\n")
    print("| trace | requests | prompt tokens | distinct blocks / blocks | theoretical hit rate | block share | paper |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in traffic.SHIPPED:
        trace = traffic.load(name)
        s = trace.summary()
        seen, hits = set(), 0   # the share of blocks (not tokens) that hit
        for i in range(len(trace)):
            ids = trace.ids(i).tolist()
            hits += next((j for j, h in enumerate(ids) if h not in seen), len(ids))
            seen.update(ids)
        print(f"| {name} | {s.requests:,} | {s.prompt_tokens:,} | {s.distinct_blocks:,} / {s.prompt_blocks:,} | "
              f"{trace.theoretical_hit_rate():.1%} | {hits / s.prompt_blocks:.1%} | {PAPER_CACHE_RATIO[name]:.0%} |")
    print()


def claims(jobs: int):
    print("## Figure 9's claims: 3M tokens reach less than half of the maximum, 50M nearly all\n")
    print("| trace | policy | maximum | 3M tokens | share | 50M tokens | share | replay s (3M, 50M) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for name in traffic.SHIPPED:
        trace = traffic.load(name)
        best = trace.theoretical_hit_rate()
        for policy in traffic.POLICIES:
            small, large = capacity_curve(trace, [3_000_000, 50_000_000], jobs=jobs, block_size=512, policy=policy)
            print(f"| {name} | {policy} | {best:.1%} | {small.hit_rate:.1%} | {small.hit_rate / best:.0%} | "
                  f"{large.hit_rate:.1%} | {large.hit_rate / best:.0%} | {small.wall_s:.0f}, {large.wall_s:.0f} |",
                  flush=True)
    print()


def one_replay(block_size: int, profile: bool):
    """In this (fresh) process: the whole conversation trace at a 50M-token pool."""
    trace = traffic.load("conversation")
    start = time.perf_counter()
    profiler = cProfile.Profile() if profile else None
    if profiler:
        profiler.enable()
    result = traffic.replay(trace, 50_000_000, block_size)
    if profiler:
        profiler.disable()
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = usage.ru_utime + usage.ru_stime   # the whole process: loading and the engine's build included
    print(f"| conversation, block size {block_size}, 50M tokens, nano-vllm{', profiled' if profile else ''} | "
          f"{wall:.1f} s | {cpu:.1f} s | {usage.ru_maxrss / 1024:,.0f} MB | {result.hit_rate:.2%} | {result.steps:,} |")
    if profiler:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(12)
        print("\n```\n" + out.getvalue().strip() + "\n```")


def speed(small_blocks: bool, profile: bool):
    print("## Speed and memory of one replay (a fresh process, one core)\n")
    print("| replay | wall | CPU time | peak memory (maxrss) | hit rate | steps |")
    print("|---|---:|---:|---:|---:|---:|")
    runs = [[str(block_size)] for block_size in [512] + ([32] if small_blocks else [])]
    for args in runs + ([["512", "--profile"]] if profile else []):   # timed without the profiler first
        command = [sys.executable, __file__, "--one"] + args
        print(subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip(), flush=True)
    print()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skip-claims", action="store_true")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--small-blocks", action="store_true", help="also block size 32 (every block real)")
    parser.add_argument("--profile", action="store_true", help="where the time goes (cProfile, top 12)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        return one_replay(args.one, args.profile)
    maxima()
    if not args.skip_speed:
        speed(args.small_blocks, args.profile)
    if not args.skip_claims:
        claims(args.jobs)


if __name__ == "__main__":
    main()
