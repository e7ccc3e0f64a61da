"""How the recording scales: pictures per second against the live step rate, memory per step,
seeks, bounded history and trace files, on the workloads of issue 11.

    .venv/bin/python bench/trace_scale.py [--quick]

A "picture visited" is frame s read in order (its events unpacked and its Snapshot made), then
what an incremental view reads of it: every block the step's events touched and every scheduled
request (its SeqView). Memory is what tracemalloc sees the recording hold once every picture has
been built, divided by the steps (the engine itself is measured with recording off and taken out).
"""
import argparse
import gc
import random
import tempfile
import time
import tracemalloc
from pathlib import Path

from blockviz.sim import Simulator
from blockviz.recording.io import load_trace

TOUCH_KINDS = {"allocate", "revive", "share", "hash", "release", "append_block"}


def shared_prefix_sim(num_blocks: int, record=True, history=None, record_to=None, requests: int = 64) -> Simulator:
    """Block size 16, 64 requests sharing a 256-token system prompt, decode-heavy."""
    rng = random.Random(0)
    sim = Simulator(num_blocks=num_blocks, block_size=16, max_num_seqs=64, max_num_batched_tokens=8192,
                    rule="count", record=record, history=history, record_to=record_to)
    system = [rng.randrange(1, 30000) for _ in range(256)]
    for _ in range(requests):
        sim.add(system + [rng.randrange(1, 30000) for _ in range(rng.randrange(8, 64))], max_tokens=1000,
                ignore_eos=True)
    return sim


def visit(sim, step: int):
    frame = sim.frames[step]
    snap = frame.snapshot
    for e in frame.events:
        if e.kind in TOUCH_KINDS:
            snap.blocks[e.block_id]
    for seq_id in snap.scheduled:
        snap.seqs[seq_id].block_table
    return snap


def live_rates(num_blocks: int, steps: int, repeats: int = 3) -> tuple[float, float]:
    """Best steps/s with recording off and on, runs interleaved (the machine is shared and noisy)."""
    best = {False: 0.0, True: 0.0}
    for _ in range(repeats):
        for record in (False, True):
            sim = shared_prefix_sim(num_blocks, record=record)
            start = time.perf_counter()
            sim.run(max_steps=steps)
            best[record] = max(best[record], steps / (time.perf_counter() - start))
    return best[False], best[True]


def held_by(num_blocks: int, steps: int, record: bool) -> tuple[float, float]:
    """(bytes held after `steps` steps, bytes per step over the second half) by a session with
    recording on (every picture built) or off, as tracemalloc counts them."""
    gc.collect()
    tracemalloc.start()
    start = tracemalloc.get_traced_memory()[0]
    sim = shared_prefix_sim(num_blocks, record=record)
    held = []
    for chunk in (steps // 2, steps - steps // 2):
        sim.run(max_steps=chunk)
        if record:
            sim.frames.build(sim.last_step)
            sim.frames.cache.clear()
        gc.collect()
        held.append(tracemalloc.get_traced_memory()[0])
    half, end = held
    tracemalloc.stop()
    return end - start, (end - half) / (steps - steps // 2)


def timed_seeks(sim, count: int = 200) -> tuple[list[float], list[float], int, float]:
    """Random seeks, each followed by what a whole-pool view reads: (sorted wall seconds, sorted CPU
    seconds of this process, how many met a full collection of the process, the longest such
    collection). The CPU time leaves out the moments the shared machine gave the core to others; a
    full collection walks every object the process holds, so it can land on any operation, and the
    seeks are told apart from it."""
    full: list[float] = []
    started: list[float] = []

    def on_gc(phase, info):
        if info["generation"] == 2:
            if phase == "start":
                started.append(time.perf_counter())
            else:
                full.append(time.perf_counter() - started.pop())

    rng, seeks, cpu, met = random.Random(1), [], [], 0
    gc.callbacks.append(on_gc)
    try:
        for _ in range(count):
            s, before = rng.randrange(sim.last_step + 1), len(full)
            t, c = time.perf_counter(), time.process_time()
            snap = sim.seek(s).snapshot
            snap.free_block_ids, snap.hash_to_block_id, list(snap.seqs.values())
            seeks.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
            met += len(full) > before
    finally:
        gc.callbacks.remove(on_gc)
    return sorted(seeks), sorted(cpu), met, max(full, default=0.0)


def split_cost(num_blocks: int, steps: int) -> tuple[float, float]:
    """Seconds per step to build every picture (replay and History writes), then to visit them."""
    sim = shared_prefix_sim(num_blocks)
    sim.run(max_steps=steps)
    start = time.perf_counter()
    sim.frames.build(sim.last_step)
    build = time.perf_counter() - start
    start = time.perf_counter()
    for s in range(sim.last_step + 1):
        visit(sim, s)
    return build / (sim.last_step + 1), (time.perf_counter() - start) / (sim.last_step + 1)


def pool_figures(num_blocks: int, steps: int):
    off, on = live_rates(num_blocks, steps)
    sim = shared_prefix_sim(num_blocks)
    sim.run(max_steps=steps)
    start = time.perf_counter()
    for s in range(sim.last_step + 1):
        visit(sim, s)
    pictures = (sim.last_step + 1) / (time.perf_counter() - start)
    seeks, cpu, met, longest = timed_seeks(sim)  # once the pictures are built, as the goal says
    held = len(gc.get_objects())
    del sim
    build, look = split_cost(num_blocks, steps)
    (on_total, on_step), (off_total, off_step) = held_by(num_blocks, steps, True), held_by(num_blocks, steps, False)
    per_step, marginal = (on_total - off_total) / steps, on_step - off_step
    print(f"{num_blocks:>6} blocks, {steps} steps: live {off:7.0f} steps/s (recording off), {on:7.0f} (on), "
          f"on/off {on / off:.2f}")
    print(f"        pictures in order {pictures:7.0f}/s = {pictures / on:.2f}x the live rate (goal >= 0.5x); "
          f"recording holds {per_step / 1024:.1f} kB per step on average (its replay engine included), "
          f"{marginal / 1024:.1f} kB per further step (goal <= {16 if num_blocks > 4096 else 4} kB; "
          "both less the same run with recording off)")
    print(f"        where a picture goes: replay and History writes {build * on:.1f} live steps, the visit "
          f"{look * on:.1f} (a second run, the two timed apart)")
    print(f"        seek + free queue + map + requests, {len(seeks)} seeks once the pictures are built: median "
          f"{seeks[len(seeks) // 2] * 1e3:.2f} ms, max {seeks[-1] * 1e3:.2f} ms (goal <= 20 ms), CPU time max "
          f"{cpu[-1] * 1e3:.2f} ms; {met} met a full "
          f"collection of the process ({held} objects, longest {longest * 1e3:.0f} ms)")


def crowd_sim(num_requests: int) -> Simulator:
    """2,000 requests with shared prefixes on a 48-block pool: preemption all the way."""
    rng = random.Random(0)
    sim = Simulator(num_blocks=48, block_size=16, max_num_seqs=64, max_num_batched_tokens=2048, rule="count")
    prefixes = [[rng.randrange(1, 30000) for _ in range(rng.randrange(32, 160))] for _ in range(8)]
    for _ in range(num_requests):
        sim.add(rng.choice(prefixes) + [rng.randrange(1, 30000) for _ in range(rng.randrange(1, 64))],
                max_tokens=rng.randrange(8, 64), ignore_eos=True)
    return sim


def crowd(num_requests: int = 2000):
    """Time and memory from two runs of the same workload: tracemalloc slows Python several times
    over, so the frames are timed without it and its peak is taken in the second run."""
    sim = crowd_sim(num_requests)
    start = time.perf_counter()
    sim.run()
    live = time.perf_counter() - start
    start = time.perf_counter()
    for s in range(sim.last_step + 1):
        visit(sim, s)
    frames = time.perf_counter() - start
    preempted = sum(e.kind == "preempt" for s in range(sim.last_step + 1) for e in sim.events(s))
    del sim
    sim = crowd_sim(num_requests)
    sim.run()
    gc.collect()
    tracemalloc.start()
    for s in range(sim.last_step + 1):
        visit(sim, s)
    held = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"crowd: {num_requests} requests on 48 blocks, {sim.num_steps} steps, {preempted} preemptions: "
          f"live {live:.1f} s; all frames {frames:.1f} s (goal <= 10 s), peak {held / 2**20:.0f} MB while "
          "building them (goal <= 300 MB; a second run, under tracemalloc)")


def streaming_sim(num_blocks: int, **kwargs) -> tuple[Simulator, callable]:
    """Requests keep arriving: 64 in flight, each generating 32..255 tokens after a shared prompt."""
    rng = random.Random(0)
    sim = Simulator(num_blocks=num_blocks, block_size=16, max_num_seqs=64, max_num_batched_tokens=4096,
                    rule="count", **kwargs)
    system = [rng.randrange(1, 30000) for _ in range(256)]

    def top_up():
        while len(sim.scheduler.waiting) + len(sim.scheduler.running) < 64:
            sim.add(system + [rng.randrange(1, 30000) for _ in range(rng.randrange(8, 64))],
                    max_tokens=rng.randrange(32, 256), ignore_eos=True)
    return sim, top_up


def run_stream(sim, top_up, steps: int):
    while sim.num_steps < steps:
        top_up()
        sim.run(max_steps=min(1000, steps - sim.num_steps))


def stream(num_blocks: int, steps: int, history: int):
    """A live stream with a bounded window, its pictures built as it goes (as a view following it)."""
    sim, top_up = streaming_sim(num_blocks, history=history)
    gc.collect()
    tracemalloc.start()
    start = time.perf_counter()
    run_stream(sim, top_up, steps)
    seconds = time.perf_counter() - start
    sim.frames[sim.last_step]
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"stream: {steps} steps at {num_blocks} blocks, history={history}: {seconds:.0f} s, "
          f"window {sim.first_step}..{sim.last_step}, peak {peak / 2**20:.0f} MB (goal < 1024 MB), "
          f"held at the end {current / 2**20:.0f} MB")
    try:
        sim.seek(0)
    except IndexError as e:
        print(f"        seek(0): {e}")


def trace_file(steps: int):
    """A stream recorded to a file as it runs (with keyframes), then saved whole, then loaded;
    then cold seeks on the loaded traces (a fresh load each, nothing replayed yet)."""
    with tempfile.TemporaryDirectory() as tmp:
        recorded, saved_path = Path(tmp) / "recorded.jsonl", Path(tmp) / "saved.jsonl"
        sim, top_up = streaming_sim(4096, record_to=recorded)
        start = time.perf_counter()
        run_stream(sim, top_up, steps)
        live = time.perf_counter() - start
        sim.close()
        start = time.perf_counter()
        sim.save(saved_path)
        saved = time.perf_counter() - start
        for path in (saved_path, recorded):
            start = time.perf_counter()
            loaded = load_trace(path)
            load = time.perf_counter() - start
            start = time.perf_counter()
            list(loaded.frames[1].snapshot.seqs.values())
            first_picture = time.perf_counter() - start
            start = time.perf_counter()
            load_trace(path).seek(steps)
            at_end = time.perf_counter() - start
            rng, worst = random.Random(2), 0.0
            for _ in range(0 if path == saved_path else 20):  # without keyframes each is a replay from 0
                s = rng.randrange(steps + 1)
                cold = load_trace(path)
                start = time.perf_counter()
                cold.seek(s)
                worst = max(worst, time.perf_counter() - start)
            kind = "saved at the end" if path == saved_path else f"recorded as it ran ({live:.0f} s), {len(loaded.keyframe_steps)} keyframes"
            print(f"trace file, {kind}: {loaded.last_step} steps, {path.stat().st_size / 2**20:.0f} MB: "
                  + (f"save {saved:.2f} s, " if path == saved_path else "")
                  + f"load {load:.2f} s (goal <= 2 s each); first picture {first_picture:.3f} s; "
                  f"cold seek to the end {at_end:.2f} s"
                  + (f", worst of 20 cold seeks {worst:.2f} s" if worst else ""))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer steps (a smoke run, not the targets)")
    args = parser.parse_args()
    steps = 200 if args.quick else 1000
    pool_figures(1024, steps)
    pool_figures(65536, steps)
    crowd(200 if args.quick else 2000)
    stream(65536, 2000 if args.quick else 100_000, history=1000)
    trace_file(2000 if args.quick else 100_000)


if __name__ == "__main__":
    main()
