"""blockviz's RadixCache against SGLang's own on N random operation streams (issue 36: 0 differences
over at least 1,000): the same streams as tests/radix/test_sglang_differential.py, drawn from a
seeded generator, each run on both sides and compared after every operation. Prints the count of
streams, operations and differences, and the time each side took.

    .venv/bin/python bench/radix_vs_sglang.py [--streams 1000] [--seed 0]
        [--python .venv-sglang/bin/python] [--plain-import]

--plain-import imports SGLang's radix_cache module as it stands, with no stand-ins: for an
environment that holds all of SGLang's dependencies (a CUDA torch, about 6 GB), to show that the
stand-ins of .venv-sglang change nothing.
"""
import argparse
import random
import time
from collections import Counter
from pathlib import Path

from tests.radix.sides import SGLANG_PYTHON, SGLang, blockviz_run, first_difference
from tests.radix.streams import random_stream


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--python", type=Path, default=SGLANG_PYTHON)
    parser.add_argument("--plain-import", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    streams = [random_stream(rng) for _ in range(args.streams)]
    differences, ops, errors, settings = [], 0, 0, Counter()
    ours_s = theirs_s = 0.0
    start = time.perf_counter()
    with SGLang(args.python, plain_import=args.plain_import) as sglang:
        print(f"SGLang's module: {sglang.module_file} ({'plain import' if args.plain_import else 'stand-ins'})")
        for i, stream in enumerate(streams):
            t0 = time.perf_counter()
            theirs = sglang.run(stream)
            t1 = time.perf_counter()
            ours = blockviz_run(stream)
            t2 = time.perf_counter()
            theirs_s += t1 - t0
            ours_s += t2 - t1
            ops += len(stream["ops"])
            errors += "error" in ours
            settings[(stream["policy"], stream["page_size"])] += 1
            difference = first_difference(stream, ours, theirs)
            if theirs["touched"]:
                difference = f"SGLang's cache called a stand-in: {theirs['touched']}"
            if difference:
                differences.append((i, difference))
    print(f"{len(streams)} streams, {ops} operations, {len(settings)} (policy, page size) settings, "
          f"{errors} streams ended in an exception (the same on both sides or counted below)")
    print(f"differences: {len(differences)}")
    for i, difference in differences[:5]:
        print(f"  stream {i}: {difference}")
    print(f"time: {time.perf_counter() - start:.1f} s in all (SGLang's side {theirs_s:.1f} s, blockviz's {ours_s:.1f} s)")


if __name__ == "__main__":
    main()
