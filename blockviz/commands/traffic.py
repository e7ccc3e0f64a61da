"""`blockviz traffic FILE_OR_NAME`: a trace's capacity curve, hit rate against pool size."""
import argparse
import os
import sys

from blockviz.traffic.lengths import HASH_BLOCK
from blockviz.traffic.read import SHIPPED, load
from blockviz.traffic.replay import ARRIVALS, POLICIES, check_lengths


def pool_sizes(text: str) -> list[int]:
    """'1e5,1e6,3e6' -> [100000, 1000000, 3000000] (whole numbers of tokens, >= 1)."""
    sizes = []
    for part in text.split(","):
        try:
            value = float(part)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a pool size in tokens: {part!r}") from None
        if not value >= 1 or value != int(value) or value > 1e12:
            raise argparse.ArgumentTypeError(f"a pool size is a whole number of tokens >= 1, got {part!r}")
        sizes.append(int(value))
    return sizes


def add_traffic_parser(sub):
    t = sub.add_parser("traffic", help="replay a serving trace: hit rate against KV pool size",
                       description="Replay a request trace (Mooncake's JSON-lines format; the shipped "
                       f"{', '.join(SHIPPED)}) through nano-vllm's engine at several pool sizes and print the "
                       "prefix-cache hit rate of each beside an infinite cache's.")
    t.add_argument("trace", metavar="FILE_OR_NAME", help=f"a trace file (.jsonl or .jsonl.gz) or {' / '.join(SHIPPED)}")
    t.add_argument("--pools", type=pool_sizes, default=pool_sizes("1e5,1e6,3e6,1e7,5e7"), metavar="N,N,...",
                   help="pool sizes in tokens (default 1e5,1e6,3e6,1e7,5e7)")
    t.add_argument("--block-size", type=int, default=HASH_BLOCK, metavar="B", help="tokens per block (default %(default)s)")
    t.add_argument("--tokens-per-id", type=int, default=HASH_BLOCK, metavar="N",
                   help="tokens each 512-token hash id becomes (default %(default)s: every token real)")
    t.add_argument("--policy", choices=POLICIES, default="nano-vllm")
    t.add_argument("--arrivals", choices=ARRIVALS, default="timestamps")
    t.add_argument("--head", type=int, metavar="N", help="only the first N requests")
    t.add_argument("--png", metavar="FILE", help="draw the curve to a PNG file")
    t.add_argument("--html", metavar="FILE", help="the curve and its table as an HTML page")
    t.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="N",
                   help="replays run at once, one process each (default: the machine's cores, %(default)s)")
    t.add_argument("--no-progress", action="store_true", help="no progress bars")


def run(args: argparse.Namespace) -> int:
    from blockviz.traffic.curves import capacity_curve
    from blockviz.traffic import plot
    try:
        trace = load(args.trace)
        if args.head is not None:
            trace = trace.head(args.head)
        check_lengths(trace, args.tokens_per_id)  # a request the engine cannot serve: said before any work
        theoretical = trace.theoretical_hit_rate(args.tokens_per_id)
        print(trace.summary())
        points = capacity_curve(trace, args.pools, jobs=args.jobs, bars=not args.no_progress,
                                block_size=args.block_size, tokens_per_id=args.tokens_per_id,
                                policy=args.policy, arrivals=args.arrivals)
    except (ValueError, OSError) as e:
        print(f"blockviz traffic: {e}", file=sys.stderr)
        return 2
    title = f"{trace.name}: {args.policy}, block size {args.block_size}, {args.arrivals}"
    print(f"\n{title}; an infinite cache serves {theoretical:.1%} of prompt tokens")
    print(plot.text_table(points, theoretical))
    try:
        if args.png:
            plot.save_png(points, theoretical, title, args.png)
            print(f"curve drawn to {args.png}")
        if args.html:
            with open(args.html, "w", encoding="utf-8") as f:
                f.write(plot.html_page(points, theoretical, title))
            print(f"page written to {args.html}")
    except OSError as e:
        print(f"blockviz traffic: cannot write: {e}", file=sys.stderr)
        return 2
    return 0
