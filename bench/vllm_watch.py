"""How fast a vLLM watch takes events in, how soon the view shows them, and how much memory a
long stream keeps. No vLLM needed: a publisher process sends vLLM's wire format at full speed.

    .venv/bin/python bench/vllm_watch.py [--events 500000] [--per-batch 64] [--long 1000000] [--history 1000]

1. Throughput: the publisher (its own process, vLLM's frames and numbering) sends every batch as
   fast as ZMQ takes it; the same stream is received by a bare SUB socket (the baseline: ZMQ alone,
   no decoding) and by a Watch (decode, sequence, index). Goal: >= 100,000 events/s, and the ratio
   to the baseline says what decoding and the index cost.
2. Lag: one batch every 20 ms, each stamped with its publication time; the lag is that time to the
   moment the widget's forest shows the step (the view's throttle and render included). Goal: <= 100 ms.
3. Memory (measured before the lag run loads the views): a long stream, at a rate the watch
   keeps up with, into a Watch with history=N; the resident memory after each quarter must stop
   growing once the window is full.
"""
import argparse
import multiprocessing as mp
import sys
import time
from pathlib import Path
from statistics import median, quantiles

import zmq

from blockviz.vllm.watch import Watch
from blockviz.vllm.wire import encode_batch, removed, stored

sys.path[:0] = [str(Path(__file__).resolve().parents[1])]
from tests.vllm.publisher import Publisher  # noqa: E402  (the tests' stand-in for vLLM's publisher)


def free_endpoint() -> str:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"tcp://127.0.0.1:{s.getsockname()[1]}"


def payloads(batches: int, per_batch: int, block_size: int = 32, keep: int = 4096) -> list[bytes]:
    """A cache that stores one-block chains and evicts the oldest once `keep` blocks are cached:
    half the events of a batch store a block, half remove one."""
    out, next_hash = [], 1
    for b in range(batches):
        events = []
        for _ in range(per_batch // 2):
            events.append(stored([next_hash], next_hash - 1 if next_hash % 8 else None,
                                 [next_hash % 1000] * block_size, block_size))
            if next_hash > keep:
                events.append(removed([next_hash - keep]))
            next_hash += 1
        out.append(encode_batch(time.time(), events))
    return out


def publish(endpoint: str, batches: int, per_batch: int, go, pace: float = 0.0, rate: float = 0.0):
    """`pace`: one fresh batch every `pace` s, stamped as it goes (the lag run); `rate`: events/s at
    most (the memory run: slower than the watch, so ZMQ's queue stays empty and only the watch grows)."""
    publisher = Publisher(endpoint)
    data = payloads(batches, per_batch)
    go.wait()
    t0 = time.perf_counter()
    for n, payload in enumerate(data):
        if pace:
            time.sleep(pace)
            payload = encode_batch(time.time(), [stored([time.monotonic_ns()], None, [1] * 32, 32)])
        elif rate and n % 16 == 0:
            time.sleep(max(0.0, t0 + n * per_batch / rate - time.perf_counter()))
        publisher.publish_payload(payload)
    time.sleep(1.0)
    publisher.close()


def start_publisher(endpoint: str, batches: int, per_batch: int, pace: float = 0.0, rate: float = 0.0):
    go = mp.Event()
    process = mp.Process(target=publish, args=(endpoint, batches, per_batch, go, pace, rate), daemon=True)
    process.start()
    time.sleep(1.5)   # connected before the first batch (ZMQ's slow joiner)
    return process, go


def events_in(batches: int, per_batch: int, keep: int = 4096) -> int:
    stores = batches * (per_batch // 2)
    return stores + max(0, stores - keep)


def baseline(batches: int, per_batch: int) -> float:
    endpoint = free_endpoint()
    ctx = zmq.Context()
    sub = ctx.socket(zmq.SUB)
    sub.setsockopt(zmq.RCVHWM, 0)
    sub.setsockopt(zmq.SUBSCRIBE, b"")
    sub.bind(endpoint)
    process, go = start_publisher(endpoint, batches, per_batch)
    go.set()
    sub.recv_multipart()
    t0 = time.perf_counter()
    for _ in range(batches - 1):
        sub.recv_multipart()
    elapsed = time.perf_counter() - t0
    process.join()
    ctx.destroy(linger=0)
    return events_in(batches, per_batch) / elapsed


def watched(batches: int, per_batch: int) -> float:
    endpoint = free_endpoint()
    watch = Watch(endpoint, None, None, history=1000)
    process, go = start_publisher(endpoint, batches, per_batch)
    go.set()
    while watch.last_step < 0:
        time.sleep(0.0005)
    t0 = time.perf_counter()
    while watch.last_step < batches - 1:
        time.sleep(0.001)
    elapsed = time.perf_counter() - t0
    process.join()
    assert not watch.problems and sum(i.lost_before for i in watch.index.steps) == 0
    watch.close()
    return events_in(batches, per_batch) / elapsed


def lag(samples: int) -> list[float]:
    from blockviz.views.vllm_widget import WatchView
    endpoint = free_endpoint()
    watch = Watch(endpoint, None, None, history=1000)
    view = WatchView(watch)
    shown: dict[int, float] = {}
    view.view.observe(lambda change: shown.setdefault(view.view.step, time.time()), "forest")
    process, go = start_publisher(endpoint, samples, 1, pace=0.02)
    go.set()
    process.join()
    time.sleep(0.5)
    published = {info.step: info.ts for info in watch.index.steps}
    watch.close()
    return [(shown[s] - published[s]) * 1000 for s in shown if s in published]


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) / 1024


def memory(batches: int, per_batch: int, history: int, rate: float) -> list[tuple[int, float, int]]:
    endpoint = free_endpoint()
    watch = Watch(endpoint, None, None, history=history)
    process, go = start_publisher(endpoint, batches, per_batch, rate=rate)
    go.set()
    marks = []
    for quarter in range(1, 5):
        while watch.last_step < batches * quarter // 4 - 1:
            time.sleep(0.01)
        marks.append((watch.last_step + 1, rss_mb(), len(watch.index.live) + len(watch.index.ended)))
    process.join()
    watch.close()
    return marks


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=500_000, help="events in the throughput run")
    parser.add_argument("--per-batch", type=int, default=64, help="events per batch (per engine step)")
    parser.add_argument("--lag-samples", type=int, default=200)
    parser.add_argument("--long", type=int, default=1_000_000, help="events in the memory run")
    parser.add_argument("--long-rate", type=float, default=40_000, help="events/s of the memory run")
    parser.add_argument("--history", type=int, default=1000)
    args = parser.parse_args()
    batches = args.events // args.per_batch
    raw = baseline(batches, args.per_batch)
    rate = watched(batches, args.per_batch)
    print(f"throughput, {batches} batches of {args.per_batch} events (a publisher process at full speed):")
    print(f"  bare ZMQ SUB (baseline)   {raw:12,.0f} events/s")
    print(f"  Watch (decode + index)    {rate:12,.0f} events/s   ratio {rate / raw:.2f}   goal >= 100,000")
    long_batches = args.long // args.per_batch
    start_mb = rss_mb()   # before the views (and the tokenizer's imports) load: the lag run comes last
    marks = memory(long_batches, args.per_batch, args.history, args.long_rate)
    print(f"memory, {long_batches} batches ({args.long:,} events at {args.long_rate:,.0f}/s) into a Watch "
          f"with history={args.history}:")
    print(f"  before the stream        RSS {start_mb:7.1f} MB")
    for steps, mb, records in marks:
        print(f"  after {steps:8,} steps   RSS {mb:7.1f} MB   block records kept {records:,}")
    lags = sorted(lag(args.lag_samples))
    p95 = quantiles(lags, n=20)[-1]
    print(f"lag, publication -> forest view updated ({len(lags)} redraws, a batch every 20 ms):")
    print(f"  median {median(lags):.1f} ms   p95 {p95:.1f} ms   max {lags[-1]:.1f} ms   goal <= 100 ms")


if __name__ == "__main__":
    main()
