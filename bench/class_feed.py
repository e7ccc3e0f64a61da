"""What one class-page message costs the teacher's kernel and the network: ClassFeed.message (the
projector's pool picture and patch, the chain, mapping and events panels, the requests table) timed
over a run, and the JSON bytes of the full message and of the patches.

    PYTHONPATH=$PWD .venv/bin/python bench/class_feed.py [--repeats 5] [--policy sglang]

The same run every time: 6 requests that share most of their prompt on 40 blocks of 16 (the demo's
pool), 24 tokens each, the simulator's character tokenizer; a message after every step. Under
--policy sglang the radix tree's panel takes the chain's place.
"""
import argparse
import json
import statistics
import time

from blockviz import Simulator
from blockviz.demo.feed import ClassFeed
from blockviz.demo.hits import HitLedger
from blockviz.demo.render import Status, Texts

PROMPT = "It is a truth universally acknowledged, that a single man in possession " * 2


def run(policy: str = "nano-vllm") -> tuple[list[float], list[int]]:
    sim = Simulator(num_blocks=40, block_size=16, policy=policy)
    for k in range(6):
        sim.add(f"{PROMPT}request {k}", max_tokens=24)
    feed = ClassFeed(sim, "<h3>bench</h3>", (), HitLedger(16, radix=policy == "sglang"), Texts(sim.decode), "en")
    seconds, sizes = [], []
    while not sim.is_finished():
        sim.step()
        status = Status(sim.cursor, sim.last_step, 0, 0.0, 0, 0, 0, True)
        start = time.perf_counter()
        message = feed.message(status, full=not seconds)
        seconds.append(time.perf_counter() - start)
        sizes.append(len(json.dumps(message)))
    return seconds, sizes


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--policy", default="nano-vllm", help="the block policy (blockviz.policies.names())")
    args = parser.parse_args()
    for _ in range(args.repeats):
        seconds, sizes = run(args.policy)
        seconds.sort()
        print(f"{len(seconds)} messages: median {1000 * statistics.median(seconds):.1f} ms, "
              f"p90 {1000 * seconds[int(0.9 * len(seconds))]:.1f} ms; bytes: full {sizes[0]:,}, "
              f"patch median {statistics.median(sizes[1:]):,.0f}, max {max(sizes[1:]):,}")


if __name__ == "__main__":
    main()
