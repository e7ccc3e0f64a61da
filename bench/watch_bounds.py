"""The vLLM watch's memory under a hostile publisher (issue 26): the watch's resident memory before
and after each case, on loopback, with a raw ZMQ PUB socket sending vLLM's wire format.

    .venv/bin/python bench/watch_bounds.py [--topics 100000] [--steps 100] [--batch-mb 6] [--stores 400000]

  topics    one batch on each of N made-up topics (a shared address without replay): publishers kept
  payloads  N steps of batches of M MB each into a watch with history=N: raw payload bytes kept
  huge      one batch of 1,000,000 events: refused before decoding
  stores    N blocks stored and never removed: cached blocks kept
  stray     a batch numbered 2**62, then the real numbering: does last_step keep moving
Each case runs in a fresh process so that one's memory does not hide another's.
"""
import argparse
import multiprocessing as mp
import socket
import time

import zmq


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) / 1024


def endpoint() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"tcp://127.0.0.1:{s.getsockname()[1]}"


def run(case: str, args, out):
    from blockviz.vllm.watch import Watch
    from blockviz.vllm.wire import encode_batch, removed, sequence_bytes, stored
    events = endpoint()
    watch = Watch(events, None, history=args.steps if case == "payloads" else 10_000)
    ctx = zmq.Context()
    pub = ctx.socket(zmq.PUB)
    pub.setsockopt(zmq.SNDHWM, 0)
    pub.connect(events)
    time.sleep(0.5)
    before = rss_mb()
    sent = 0

    def send(topic: bytes, seq: int, payload: bytes):
        nonlocal sent
        pub.send_multipart([topic, sequence_bytes(seq), payload])
        sent += 1

    if case == "topics":
        payload = encode_batch(0.0, [stored([1], None, [1, 2], 2), removed([1])])
        for i in range(args.topics):
            send(f"t{i}".encode(), 0, payload)
    elif case == "payloads":
        each = len(encode_batch(0.0, [removed([2**63 + h]) for h in range(1000)])) / 1000
        filler = [removed([2**63 + h]) for h in range(int(args.batch_mb * 2**20 / each))]  # unknown removals
        payload = encode_batch(0.0, filler)
        for i in range(args.steps):
            send(b"", i, payload)
    elif case == "huge":
        send(b"", 0, encode_batch(0.0, [removed([h]) for h in range(1_000_000)]))
        send(b"", 1, encode_batch(0.0, [stored([1], None, [1, 2], 2)]))
    elif case == "stores":
        per = 1000
        for i in range(args.stores // per):
            send(b"", i, encode_batch(0.0, [stored([i * per + j + 1], None, [j, i % 1000], 2) for j in range(per)]))
    elif case == "stray":
        send(b"", 0, encode_batch(0.0, [stored([1], None, [1, 2], 2)]))
        send(b"", 2**62, encode_batch(0.0, [stored([2], None, [3, 4], 2)]))
        for i in range(1, 101):
            send(b"", i, encode_batch(0.0, [stored([10 + i], None, [5, i], 2)]))
    deadline = time.monotonic() + 120
    while watch.last_step + 1 + sum(watch.problem_counts.values()) < expected(case, args) \
            and time.monotonic() < deadline:  # a refused batch is a problem, not a step
        time.sleep(0.05)
    watch.sync(60)
    after = rss_mb()
    index, sub = watch.index, watch.subscriber
    out.put((case, before, after, {"steps": watch.last_step + 1, "publishers": len(sub.publishers),
                                   "forgotten publishers": sub.forgotten, "cached blocks": len(index.live),
                                   "forgotten blocks": index.forgotten_blocks,
                                   "payload MB kept": round(index.payload_bytes / 2**20, 1),
                                   "payloads dropped": index.payloads_dropped,
                                   "problems": sum(watch.problem_counts.values())}))
    watch.close()
    ctx.destroy(linger=0)


def expected(case: str, args) -> int:
    """Steps the watch should reach once it has taken everything in."""
    return {"topics": args.topics, "payloads": args.steps, "huge": 1, "stores": args.stores // 1000,
            "stray": 104}[case]  # stray: 102 steps and 2 problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=100_000)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--batch-mb", type=float, default=6.0, help="under the watch's 8 MB cap on a batch")
    parser.add_argument("--stores", type=int, default=400_000)
    parser.add_argument("--cases", default="topics,payloads,huge,stores,stray")
    args = parser.parse_args()
    ctx = mp.get_context("spawn")
    for case in args.cases.split(","):
        out = ctx.Queue()
        started = time.perf_counter()
        process = ctx.Process(target=run, args=(case, args, out))
        process.start()
        name, before, after, counts = out.get(timeout=600)
        process.join()
        print(f"{name:9s} RSS {before:7.1f} -> {after:7.1f} MB ({after - before:+7.1f})  "
              f"{time.perf_counter() - started:5.1f} s  " + ", ".join(f"{k} {v:,}" for k, v in counts.items()))


if __name__ == "__main__":
    main()
