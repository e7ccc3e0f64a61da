"""Serving traces through nano-vllm's engine: the shipped traces' infinite-cache hit rates beside
the Mooncake paper's Table 2, its Figure 9 claims checked, and the speed and memory of a whole
replay (issue 28, item 8: the conversation trace at block size 512 and a 50M-token pool in
<= 2 minutes on one core and <= 2 GB; at block size 32 in <= 10 minutes). Issue 35: the one-pass
curve's speed and memory (--curve: the whole conversation trace <= 1 s CPU and <= 1 GB, a trace of
10x its blocks <= 10 s) and the curve beside the faithful replay at five pool sizes (--versus).

    .venv/bin/python bench/traffic.py [--skip-claims] [--skip-speed] [--small-blocks] [--profile] [--jobs N]
    .venv/bin/python bench/traffic.py --curve            # only the curve's speed, memory, where the time goes
    .venv/bin/python bench/traffic.py --versus [--jobs N]  # only the curve against replays and Dynamo's
                                                           # (bash bench/dynamo_env.sh first; tens of minutes)
    .venv/bin/python bench/traffic.py --ratio RUNS         # only the replay's CPU time against Dynamo's (5x goal)

Each speed figure is one replay in a fresh process (its peak memory is that process's maxrss; its
CPU time is the one core it runs on, the fair figure on a shared machine; --profile adds a run
under cProfile, slower, for where the time goes).
"""
import argparse
import cProfile
import gzip
import io
import json
import pstats
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from blockviz import traffic
from blockviz.traffic import curve
from blockviz.traffic.curves import capacity_curve
from blockviz.traffic.read import DATA_DIR
from blockviz.traffic.trace import Trace

VERSUS_POOLS = [1_000_000, 3_000_000, 10_000_000, 30_000_000, 50_000_000]   # real tokens

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


def repeated(trace: Trace, times: int) -> Trace:
    """The trace played `times` times in a row, each copy's ids new: `times` x its blocks, the same
    reuse within each copy."""
    span = int(trace.hash_ids.max()) + 1
    counts = np.diff(trace.offsets)
    end = trace.timestamps_ms[-1] + 1000
    return Trace(f"{trace.name} x{times}", np.concatenate([trace.timestamps_ms + k * end for k in range(times)]),
                 np.tile(trace.input_lengths, times), np.tile(trace.output_lengths, times),
                 np.concatenate([[0], np.cumsum(np.tile(counts, times))]),
                 np.concatenate([trace.hash_ids + k * span for k in range(times)]))


def one_curve(times: int, profile: bool):
    """In this (fresh) process: curve() of the conversation trace (repeated `times` times)."""
    from blockviz.traffic import curve as module_curve   # noqa: F401  (imported before timing)
    import importlib
    module = importlib.import_module("blockviz.traffic.curve")
    trace = traffic.load("conversation")
    if times > 1:
        trace = repeated(trace, times)
    parts = {}
    start_cpu = time.process_time()
    uses = module.block_uses(trace, 512, 512, True)
    parts["block uses (keys, order)"] = time.process_time() - start_cpu
    t = time.process_time()
    module.reuse_distances(uses.keys, uses.start)
    parts["stack distances"] = time.process_time() - t
    t = time.process_time()
    c = curve(trace, 512, 512)
    whole = time.process_time() - t
    parts["(whole curve() call again)"] = whole
    usage = resource.getrusage(resource.RUSAGE_SELF)
    rates = " / ".join(f"{c.hit_rate(p):.1%}" for p in VERSUS_POOLS)
    print(f"| {trace.name} | {len(uses.keys):,} | {whole:.2f} s | {usage.ru_maxrss / 1024:,.0f} MB | "
          f"{c.max_hit_rate:.2%} | {rates} | " + ", ".join(f"{k} {v:.2f} s" for k, v in parts.items()) + " |")
    if profile:
        profiler = cProfile.Profile()
        profiler.enable()
        curve(trace, 512, 512)
        profiler.disable()
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(10)
        print("\n```\n" + out.getvalue().strip() + "\n```")


def curve_speed(profile: bool):
    print("## The one-pass curve: speed and memory (a fresh process each, CPU time of the call)\n")
    print(f"| trace | block uses | CPU | peak memory (maxrss, the process) | max hit rate | hit rate at "
          f"{', '.join(f'{p:,}' for p in VERSUS_POOLS)} | parts |")
    print("|---|---:|---:|---:|---:|---|---|")
    for times in (1, 10):
        command = [sys.executable, __file__, "--one-curve", str(times)] + (["--profile"] if profile and times == 1 else [])
        print(subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip(), flush=True)
    print()


DYNAMO = Path(__file__).resolve().parents[1] / ".venv-dynamo" / "bin" / "python"


def dynamo_replay(name: str, pool_tokens: int, folder: Path) -> dict | None:
    """Dynamo's replay of a shipped trace at one pool (bench/dynamo_replay.py in .venv-dynamo, made by
    bench/dynamo_env.sh); None without that environment, the error's last line if it fails."""
    if not DYNAMO.exists():
        return None
    plain = folder / f"{name}.jsonl"
    if not plain.exists():
        plain.write_bytes(gzip.decompress((DATA_DIR / traffic.SHIPPED[name]).read_bytes()))
    run = subprocess.run([str(DYNAMO), str(Path(__file__).parent / "dynamo_replay.py"), str(plain), str(pool_tokens)],
                         capture_output=True, text=True)
    if run.returncode:
        return {"error": (run.stderr.strip().splitlines() or ["exit code %d" % run.returncode])[-1]}
    return json.loads(run.stdout.strip().splitlines()[-1])


def versus(jobs: int):
    print("## The curve beside the faithful replay and Dynamo's (block size 512, arrivals at their timestamps)\n")
    print("| trace | pool tokens | curve | nano-vllm replay | vllm replay | Dynamo (first admission) | curve - nano-vllm | "
          "refused | preemptions (nano-vllm, vllm) | CPU s: curve, nano-vllm, vllm, Dynamo |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as folder:
        for name in traffic.SHIPPED:
            trace = traffic.load(name)
            start = time.process_time()
            c = curve(trace, 512, 512)
            curve_cpu = time.process_time() - start
            runs = {policy: capacity_curve(trace, VERSUS_POOLS, jobs=jobs, block_size=512, policy=policy)
                    for policy in traffic.POLICIES}
            for i, pool in enumerate(VERSUS_POOLS):
                nano, vllm = runs["nano-vllm"][i], runs["vllm"][i]
                peer = dynamo_replay(name, pool, Path(folder))
                if peer is None:
                    peer_rate, peer_cpu = "no .venv-dynamo", "-"
                elif "error" in peer:
                    peer_rate, peer_cpu = f"failed: {peer['error'][:80]}", "-"
                else:
                    peer_rate, peer_cpu = f"{peer['first_admission']:.2%}", f"{peer['cpu_s']:.1f}"
                model = c.hit_rate(pool)
                print(f"| {name} | {pool:,} | {model:.2%} | {nano.hit_rate:.2%} | {vllm.hit_rate:.2%} | {peer_rate} | "
                      f"{(model - nano.hit_rate) * 100:+.2f} | {nano.refused:,} | {nano.preemptions:,}, {vllm.preemptions:,} | "
                      f"{curve_cpu:.2f} (every size), {nano.cpu_s:.1f}, {vllm.cpu_s:.1f}, {peer_cpu} |", flush=True)
    print()


def timed_replay(name: str, pool_tokens: int, policy: str, every_step: bool = False):
    """In this (fresh) process: one replay at block size 512, one JSON line: the CPU time of loading
    the trace and of the replay call (Dynamo's figure covers reading its trace file and replaying)."""
    start = time.process_time()
    trace = traffic.load(name)
    loaded = time.process_time()
    result = traffic.replay(trace, pool_tokens, 512, policy=policy, every_step=every_step)
    done = time.process_time()
    print(json.dumps({"load_s": loaded - start, "replay_s": done - loaded, "hit_rate": result.hit_rate,
                      "steps": result.steps}))


def timed_in_fresh_process(name: str, pool_tokens: int, policy: str, mode: str) -> dict:
    command = [sys.executable, __file__, "--timed-replay", name, str(pool_tokens), policy, mode]
    return json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)


def ratio(runs: int, pool_tokens: int = 50_000_000):
    """blockviz's faithful replay against Dynamo's on the same trace and pool, each in a fresh process,
    one after the other, `runs` times each, so all see the same load: the goal is within 5x. blockviz
    twice: as it replays (quiet steps at once) and with every step through nano-vllm's scheduler."""
    print(f"## The faithful replay beside Dynamo's: CPU time, block size 512, {pool_tokens:,} tokens\n")
    print("| trace | policy | run | blockviz: load + replay (replay) | Dynamo | ratio | every step through the scheduler "
          "| ratio | hit rates: blockviz, Dynamo | steps |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|---:|")
    with tempfile.TemporaryDirectory() as folder:
        for name in traffic.SHIPPED:
            for policy in ("nano-vllm", "vllm"):
                for run in range(1, runs + 1):
                    ours, every = (timed_in_fresh_process(name, pool_tokens, policy, mode) for mode in ("quiet", "every"))
                    assert (ours["hit_rate"], ours["steps"]) == (every["hit_rate"], every["steps"])
                    peer = dynamo_replay(name, pool_tokens, Path(folder))
                    cpu, every_cpu = (r["load_s"] + r["replay_s"] for r in (ours, every))
                    if peer is None or "error" in peer:
                        theirs, times, every_times, rate = (peer or {}).get("error", "no .venv-dynamo")[:60], "-", "-", "-"
                    else:
                        theirs, rate = f"{peer['cpu_s']:.2f} s", f"{peer['first_admission']:.2%}"
                        times, every_times = f"{cpu / peer['cpu_s']:.1f}x", f"{every_cpu / peer['cpu_s']:.1f}x"
                    print(f"| {name} | {policy} | {run} | {cpu:.2f} s ({ours['replay_s']:.2f} s) | {theirs} | {times} | "
                          f"{every_cpu:.2f} s | {every_times} | {ours['hit_rate']:.2%}, {rate} | {ours['steps']:,} |",
                          flush=True)
    print()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skip-claims", action="store_true")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--small-blocks", action="store_true", help="also block size 32 (every block real)")
    parser.add_argument("--profile", action="store_true", help="where the time goes (cProfile, top 12)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--curve", action="store_true", help="only the one-pass curve's speed and memory")
    parser.add_argument("--versus", action="store_true", help="only the curve against replays at five pools")
    parser.add_argument("--ratio", type=int, metavar="RUNS", help="only the faithful replay against Dynamo's, "
                        "RUNS times each, alternating (bash bench/dynamo_env.sh first)")
    parser.add_argument("--timed-replay", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--one-curve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.timed_replay:
        name, pool, policy, mode = args.timed_replay
        return timed_replay(name, int(pool), policy, every_step=mode == "every")
    if args.ratio:
        return ratio(args.ratio)
    if args.one:
        return one_replay(args.one, args.profile)
    if args.one_curve:
        return one_curve(args.one_curve, args.profile)
    if args.curve or args.versus:
        if args.curve:
            curve_speed(args.profile)
        if args.versus:
            versus(args.jobs)
        return
    maxima()
    if not args.skip_speed:
        speed(args.small_blocks, args.profile)
    if not args.skip_claims:
        claims(args.jobs)


if __name__ == "__main__":
    main()
