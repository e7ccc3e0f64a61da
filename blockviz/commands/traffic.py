"""`blockviz traffic FILE_OR_NAME`: how big a prefix cache a trace needs, in tokens and GiB.

With nothing else it prints the trace's summary, the infinite-cache bound and the one-pass LRU
curve (blockviz.traffic.curve) at a range of pool sizes, in about a second. --pools adds faithful
replays through nano-vllm's engine at those sizes, each beside the curve's figure, under one block
policy or several side by side (--policy nano-vllm,vllm,sglang: the same pools, a table and a
marker each); a request that can never fit in a pool is refused and counted, as a server with that
pool would. Every size is in real tokens (512 a hash id) and in GiB of the model's KV cache (--model).
The curve models a hash-chain cache (nano-vllm's, vLLM's); SGLang's radix tree has replays only
(why there is no one-pass curve for it: docs/benchmarks.md, "SGLang's radix tree on real traffic").
"""
import argparse
import math
import os
import shlex
import sys
from pathlib import Path

from blockviz.traffic.lengths import HASH_BLOCK
from blockviz.traffic.read import SHIPPED
from blockviz.traffic.replay import ARRIVALS, POLICIES
from blockviz.traffic.units import DEFAULT_MODEL, MODELS


def add_traffic_parser(sub):
    t = sub.add_parser("traffic", help="a serving trace's prefix-cache hit rate at every pool size, in tokens and GiB",
                       description="Read a request trace (Mooncake's JSON-lines format; the shipped "
                       f"{', '.join(SHIPPED)}) and print its prefix-cache hit rate at every pool size (one pass of "
                       "LRU stack distances), in tokens and GiB of a model's KV cache; with --pools, faithful "
                       "replays through nano-vllm's engine at those sizes beside it.")
    t.add_argument("trace", metavar="FILE_OR_NAME", help=f"a trace file (.jsonl or .jsonl.gz) or {' / '.join(SHIPPED)}")
    t.add_argument("--pools", metavar="SIZE,SIZE,...",
                   help="replay through the engine at these pool sizes: tokens (1e6) or bytes of the model's KV "
                        "cache (8GiB, 80GB)")
    t.add_argument("--model", default=DEFAULT_MODEL, metavar="NAME",
                   help=f"whose KV bytes a token size the pools: {', '.join(MODELS)}, or a config.json "
                        "(default %(default)s)")
    t.add_argument("--cpu", metavar="SIZE", help="a CPU tier of this size beside each GPU pool (vLLM's CPU "
                   "offloading): the hit rate of each tier and the bytes a second loaded back")
    t.add_argument("--block-size", default=str(HASH_BLOCK), metavar="B", help="tokens per block (default %(default)s)")
    t.add_argument("--tokens-per-id", default=str(HASH_BLOCK), metavar="N",
                   help="tokens each 512-token hash id becomes (default %(default)s: every token real)")
    t.add_argument("--policy", default="nano-vllm", metavar="NAME[,NAME...]",
                   help=f"the replays' block policy, or several side by side at the same pools: {', '.join(POLICIES)} "
                        "(default %(default)s)")
    t.add_argument("--arrivals", choices=ARRIVALS, default="timestamps", help="the replays' arrivals")
    t.add_argument("--head", metavar="N", help="only the first N requests")
    t.add_argument("--png", metavar="FILE", help="draw the curve (and the replays) to a PNG file")
    t.add_argument("--html", metavar="FILE", help="the summary, the command, the curve and the tables as an HTML page")
    t.add_argument("--jobs", default=str(os.cpu_count() or 1), metavar="N",
                   help="replays run at once, one process each (default: the machine's cores, %(default)s)")
    t.add_argument("--no-progress", action="store_true", help="no progress bars (they are drawn only on a terminal)")


def whole(name: str, text: str, low: int, high: int | None = None) -> int:
    try:
        value = float(text)
        if value != int(value):
            raise ValueError
    except (ValueError, OverflowError):
        raise ValueError(f"{name} must be a whole number, got {text!r}") from None
    if value < low or (high is not None and value > high):
        raise ValueError(f"{name} must be a whole number {f'in {low}..{high}' if high else f'>= {low}'}, got {text!r}")
    return int(value)


def checked(args: argparse.Namespace) -> tuple[dict, list[str]]:
    """Every argument checked before the trace is read: the values, and one line a problem."""
    from blockviz.traffic.units import model, parse_size, parse_sizes
    values, problems = {}, []

    def check(key, make):
        try:
            values[key] = make()
        except ValueError as e:
            problems.append(str(e))

    check("block_size", lambda: whole("--block-size", args.block_size, 1, 2**20))
    check("tokens_per_id", lambda: whole("--tokens-per-id", args.tokens_per_id, 1, HASH_BLOCK))
    check("jobs", lambda: whole("--jobs", args.jobs, 1, 1024))
    check("head", lambda: None if args.head is None else whole("--head", args.head, 1))
    check("policies", lambda: policy_names(args.policy))
    check("model", lambda: model(args.model))
    per_token = values["model"].kv_bytes_per_token if "model" in values else None
    check("pools", lambda: None if args.pools is None else parse_sizes(args.pools, per_token))
    check("cpu", lambda: None if args.cpu is None else parse_size(args.cpu, per_token))
    for flag, path in (("--png", args.png), ("--html", args.html)):
        if path is not None and not Path(path).resolve().parent.is_dir():
            problems.append(f"{flag}: no folder {str(Path(path).parent)!r} to write {path!r} in")
    if args.pools is not None and problems == [] and per_token is None:
        problems.append("--pools needs a model")
    return values, problems


def policy_names(text: str) -> list[str]:
    """--policy's comma-separated names, each a registered policy, none twice."""
    names = text.split(",")
    for name in names:
        if name not in POLICIES:
            raise ValueError(f"--policy: {name!r:.40} is not a policy: choose from {', '.join(POLICIES)}, "
                             "or several separated by single commas")
    if len(set(names)) < len(names):
        raise ValueError(f"--policy names a policy twice: {text!r:.80}")
    return names


def run(args: argparse.Namespace) -> int:
    values, problems = checked(args)
    if problems:
        for problem in problems:
            print(f"blockviz traffic: {problem}", file=sys.stderr)
        return 2
    from blockviz.traffic import plot
    from blockviz.traffic.curve import curve
    from blockviz.traffic.read import load
    from blockviz.traffic.replay import check_lengths
    block_size, per_id, model = values["block_size"], values["tokens_per_id"], values["model"]
    try:
        trace = load(args.trace)
        if values["head"] is not None:
            trace = trace.head(values["head"])
        if values["pools"]:
            check_lengths(trace, per_id)   # a request the engine cannot serve: said before any work
    except (ValueError, OSError) as e:
        print(f"blockviz traffic: {e}", file=sys.stderr)
        return 2
    c = curve(trace, block_size, per_id)
    report = plot.Report(trace, c, model, command_line(args), curve_sizes(c), values["cpu"])
    print(report.header())
    print()
    print(plot.text_table(report.curve_rows()))
    print(report.milestones())
    if values["cpu"] is not None:
        print()
        print(plot.text_table(report.tier_rows()))
    if values["pools"]:
        from blockviz.traffic.curves import capacity_curve
        scaled = [max(1, pool * per_id // HASH_BLOCK) for pool in values["pools"]]
        for i, policy in enumerate(values["policies"]):   # each policy at the same pools
            try:
                points = capacity_curve(trace, scaled, jobs=values["jobs"],
                                        bars=not args.no_progress and sys.stderr.isatty(), block_size=block_size,
                                        tokens_per_id=per_id, policy=policy, arrivals=args.arrivals)
            except ValueError as e:
                print(f"blockviz traffic: {e}", file=sys.stderr)
                return 2
            report.add_replays(values["pools"], points, f"{policy}, {args.arrivals}")
            print(f"\nfaithful replays through nano-vllm's engine ({policy}, arrivals: {args.arrivals}, block size "
                  f"{block_size}), beside the curve at the same size:")
            print(plot.text_table(report.replay_rows(i)))
    try:
        if args.png:
            plot.save_png(report, args.png)
            print(f"curve drawn to {args.png}")
        if args.html:
            Path(args.html).write_text(plot.html_page(report), encoding="utf-8")
            print(f"page written to {args.html}")
    except OSError as e:
        print(f"blockviz traffic: cannot write: {e}", file=sys.stderr)
        return 2
    return 0


def command_line(args: argparse.Namespace) -> str:
    """The command that makes this output (the options given or not at their defaults)."""
    parts = ["blockviz", "traffic", args.trace]
    for option in ("pools", "model", "cpu", "block_size", "tokens_per_id", "policy", "arrivals", "head", "png", "html"):
        value = getattr(args, option)
        default = {"model": DEFAULT_MODEL, "block_size": str(HASH_BLOCK), "tokens_per_id": str(HASH_BLOCK),
                   "policy": "nano-vllm", "arrivals": "timestamps"}.get(option)
        if value is not None and value != default:
            parts += ["--" + option.replace("_", "-"), str(value)]
    return shlex.join(parts)


def curve_sizes(c) -> list[int]:
    """Pool sizes (real tokens) on a 1-2-5 scale from where the curve reaches 5 % of its maximum to
    the first that reaches all of it."""
    if c.max_hit_rate == 0:
        return [10**k for k in range(4, 9)]
    low, high = c.pool_for(c.max_hit_rate * 0.05) or 1, c.pool_for(c.max_hit_rate) or 1
    sizes = []
    for k in range(int(math.floor(math.log10(max(low, 1)))), int(math.ceil(math.log10(max(high, 1)))) + 1):
        for m in (1, 2, 5):
            size = m * 10**k
            if size >= low / 2.5 and (not sizes or sizes[-1] < high):
                sizes.append(size)
    return sizes
