"""Simulator steps per second with recording on and off, on one fixed random workload.

    .venv/bin/python bench/engine.py [--requests 64] [--repeats 3] [--policy nano-vllm]

The workload: requests drawn from a few shared system prompts plus random suffixes, a pool
small enough that decode preempts, and a token budget small enough to chunk prefills.
Goal (issue 11): recording costs at most 10%, i.e. on/off >= 0.9. Recording logs the inputs;
frames are replayed when first viewed, so the script also prints how fast that replay runs.
"""
import argparse
import random
import time

from blockviz.sim import Simulator


def workload(num_requests: int, seed: int = 0) -> list[tuple[list[int], int]]:
    rng = random.Random(seed)
    prefixes = [[rng.randrange(1, 500) for _ in range(rng.randrange(16, 64))] for _ in range(4)]
    requests = []
    for _ in range(num_requests):
        suffix = [rng.randrange(1, 500) for _ in range(rng.randrange(1, 48))]
        requests.append((rng.choice(prefixes) + suffix, rng.randrange(8, 48)))
    return requests


def run(requests, record: bool, policy: str = "nano-vllm") -> tuple[float, int, int, float]:
    sim = Simulator(num_blocks=96, block_size=8, max_num_seqs=32, max_num_batched_tokens=256,
                    rule="count", record=record, policy=policy)
    for prompt, max_tokens in requests:
        sim.add(prompt, max_tokens=max_tokens, ignore_eos=True)
    preempted, replay_rate = 0, 0.0
    start = time.perf_counter()
    steps = sim.run()
    seconds = time.perf_counter() - start
    if record:
        start = time.perf_counter()
        sim.frames[-1]  # build every frame: events and snapshots, by replay
        replay_rate = steps / (time.perf_counter() - start)
        preempted = sum(e.kind == "preempt" for s in range(steps + 1) for e in sim.events(s))
    return steps / seconds, steps, preempted, replay_rate


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--policy", default="nano-vllm", help="the block policy (blockviz.policies.names())")
    args = parser.parse_args()
    requests = workload(args.requests)
    best = {True: 0.0, False: 0.0}
    best_replay = 0.0
    for _ in range(args.repeats):
        for record in (False, True):
            rate, steps, preempted, replay_rate = run(requests, record, args.policy)
            best[record] = max(best[record], rate)
            best_replay = max(best_replay, replay_rate)
    print(f"workload: {args.requests} requests, {steps} steps, {preempted} preemptions (policy {args.policy})")
    print(f"recording off: {best[False]:8.0f} steps/s")
    print(f"recording on:  {best[True]:8.0f} steps/s")
    print(f"ratio on/off:  {best[True] / best[False]:.2f}  (goal >= 0.90)")
    print(f"building frames afterwards (replay with events + snapshots): {best_replay:8.0f} steps/s")


if __name__ == "__main__":
    main()
