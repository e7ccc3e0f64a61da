"""Generation tokens/s of the classroom demo with and without its views attached.

    .venv/bin/python bench/demo.py [--model PATH] [--device cpu|cuda] [--repeats 3]

The same workload every time: the demo's (`blockviz demo`: requests that share a system prompt,
arriving one every 2 steps, a 40-block pool that evicts and preempts), with 64 requests of up to 64
tokens so that a run lasts long enough to time; recording on as in the demo, the engine driven by the
demo's LiveRunner.

  without views  the runner with nothing to refresh
  with views     a Demo attached (player, pool, event log, mapping tab, stats and requests table),
                 refreshed as in the notebook: at most every 200 ms, at most 3% of the time
  every step     the same views refreshed after every engine step (what stepping the player costs)

No browser: the widgets' Python side runs, and their messages are JSON-encoded as a kernel would
(drawing in the browser happens in another process). Goal (issue 7): with / without >= 0.90.
"""
import argparse
import json
import time
from dataclasses import replace

import comm
import torch
from comm.base_comm import BaseComm

from blockviz.demo.app import Demo, build_engine
from blockviz.demo.live import LiveRunner
from blockviz.demo.settings import DemoSettings


class JsonComm(BaseComm):
    """Stands in for the kernel's comm: serialises every widget message, sends it nowhere."""
    sent_bytes = 0

    def publish_msg(self, msg_type, data=None, metadata=None, buffers=None, **keys):
        JsonComm.sent_bytes += len(json.dumps(data, default=str))


def generated(engine) -> int:
    return sum(seq.num_completion_tokens for seq in engine.seqs.values())


def run(settings: DemoSettings, plan, variant: str) -> dict:
    engine = build_engine(plan)  # loading the model is not timed
    if variant == "without views":
        runner = LiveRunner(engine)
        runner.schedule([lambda k=k: engine.add_request(plan.request_tokens(k), sampling(settings))
                         for k in range(settings.requests)], settings.arrival_every)
        runner.admit()
    else:
        if variant == "every step":
            settings = replace(settings, refresh_ms=0, view_budget=1.0)
        runner = Demo(settings, engine=engine, plan=plan).runner
    start = time.perf_counter()
    runner.run()
    seconds = time.perf_counter() - start
    preempted = sum(e.kind == "preempt" for f in engine.frames for e in f.events)
    return {"tokens": generated(engine), "steps": engine.num_steps, "seconds": seconds, "engine_seconds": runner.engine_seconds,
            "rate": generated(engine) / seconds, "refreshes": runner.refreshes, "view_seconds": runner.view_seconds,
            "preempted": preempted}


def sampling(settings: DemoSettings):
    from blockviz.sampling_params import SamplingParams
    return SamplingParams(temperature=settings.temperature, max_tokens=settings.max_tokens)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="model folder (default: the embedded model)")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--blocks", type=int, default=None, help="pool size (default: the demo's)")
    parser.add_argument("--block-size", type=int, default=DemoSettings.block_size)
    # the demo's workload, longer (64 requests, not 16) so that a run lasts seconds, not a few refreshes
    parser.add_argument("--requests", type=int, default=64)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3, help="best of this many runs per variant")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    comm.create_comm = JsonComm
    settings = DemoSettings(model=args.model, device=args.device, num_blocks=args.blocks, block_size=args.block_size,
                            requests=args.requests, max_tokens=args.max_tokens, pace=0)  # pace 0: flat out
    plan = settings.resolve()
    print(f"{plan.describe()}; {torch.get_num_threads()} torch threads")
    run(settings, plan, "without views")  # warm-up
    variants = ("without views", "with views", "every step")
    best: dict[str, dict] = {}
    for _ in range(args.repeats):  # interleaved, best of each: the machine may be busy with other work
        for variant in variants:
            result = run(settings, plan, variant)
            if variant not in best or result["rate"] > best[variant]["rate"]:
                best[variant] = result
    first = best["without views"]
    if any(r["tokens"] != first["tokens"] for r in best.values()):
        raise SystemExit(f"the variants generated different tokens: {[r['tokens'] for r in best.values()]}")
    print(f"workload: {first['steps']} steps, {first['tokens']} tokens generated, {first['preempted']} preemptions")
    for variant in variants:
        r = best[variant]
        extra = ""
        if variant != "without views":
            extra = (f"; {r['refreshes']} refreshes, views {r['view_seconds'] * 1000 / r['refreshes']:.1f} ms each, "
                     f"{100 * r['view_seconds'] / r['seconds']:.1f}% of the time")
        print(f"{variant + ':':15} {r['rate']:8.1f} tokens/s ({r['seconds']:.2f} s, engine {r['engine_seconds']:.2f} s){extra}")
    ratio = best["with views"]["rate"] / first["rate"]
    print(f"ratio with views / without: {ratio:.2f}  (goal >= 0.90)")
    print(f"ratio every step / without: {best['every step']['rate'] / first['rate']:.2f}")


if __name__ == "__main__":
    main()
