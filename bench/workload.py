"""The workload driver's cost: a trace-shaped workload played on a non-recording Simulator, the
same steps run by a bare loop, and building the workload itself (lazy prompts: nothing made yet).

    PYTHONPATH=. .venv/bin/python bench/workload.py [--requests 12000] [--clock seconds]

Requests arrive one every few steps (or, on the seconds clock, Poisson at a rate the default
step-time model keeps up with), prompts share a few long prefixes (made by LazyPrompt when each
request is added). Prints requests/s and steps/s for play(), and the bare loop's steps/s, so
the driver's own share of the time shows. Goal (issue 25): play() costs O(requests + steps), its
overhead over the bare loop a few percent.
"""
import argparse
import random
import time

from blockviz.workload import LazyPrompt, Request, Workload, play


def trace(num_requests: int, clock: str, seed: int = 0) -> Workload:
    rng = random.Random(seed)
    prefixes = [[rng.randrange(1, 30_000) for _ in range(rng.randrange(64, 512))] for _ in range(8)]

    def prompt(prefix: list[int], own: int, salt: int) -> LazyPrompt:
        return LazyPrompt(len(prefix) + own, lambda: prefix + [(salt * 7919 + i) % 30_000 + 1 for i in range(own)])

    requests, at = [], 0.0
    for i in range(num_requests):
        at += rng.expovariate(1 / 0.05) if clock == "seconds" else rng.randrange(0, 3)
        requests.append(Request(prompt(rng.choice(prefixes), rng.randrange(1, 256), i), rng.randrange(4, 64),
                                arrival=at if clock == "seconds" else int(at), ignore_eos=True))
    return Workload(block_size=16, num_blocks=8192, requests=requests, max_num_seqs=64,
                    max_num_batched_tokens=4096, clock=clock, when_idle="advance")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=12_000)
    parser.add_argument("--clock", choices=("steps", "seconds"), default="steps")
    args = parser.parse_args()
    start = time.perf_counter()
    workload = trace(args.requests, args.clock)
    built = time.perf_counter() - start
    print(f"built {len(workload.requests)} requests ({sum(r.num_prompt_tokens for r in workload.requests):,} "
          f"prompt tokens, none made) in {built:.2f} s")
    start = time.perf_counter()
    played = play(workload, workload.simulator(record=False, eos=-1))
    took = time.perf_counter() - start
    print(f"play: {played.num_steps} steps in {took:.2f} s: {len(workload.requests) / took:,.0f} requests/s, "
          f"{played.num_steps / took:,.0f} steps/s; preemptions {sum(s.preemptions for s in played.served)}, "
          f"prefix hits {sum(s.cached_at_admission[0] for s in played.served):,} tokens")
    # The same arrivals by a bare loop: each request added at the step play added it.
    sim = workload.simulator(record=False, eos=-1)
    by_step = sorted(((s.added_step, i) for i, s in enumerate(played.served)))
    start, k = time.perf_counter(), 0
    while k < len(by_step) or not sim.is_finished():
        while k < len(by_step) and by_step[k][0] <= sim.num_steps:
            r = workload.requests[by_step[k][1]]
            sim.add(r.prompt.make(), max_tokens=r.max_tokens, ignore_eos=True)
            k += 1
        sim.step()
    bare = time.perf_counter() - start
    print(f"bare loop: {sim.num_steps} steps in {bare:.2f} s ({sim.num_steps / bare:,.0f} steps/s); "
          f"play / bare = {took / bare:.3f}")


if __name__ == "__main__":
    main()
