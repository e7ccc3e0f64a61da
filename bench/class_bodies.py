"""The class server's memory under oversized requests: the server's resident memory before and
after N requests with large bodies (every path the class side has, a few at a time), on loopback,
or with `--headers` large header blocks instead (answered 431).
Goal: flat (issue 26 measured 297 -> 655 MB for three 99 MB GET / before bodies were capped).

    .venv/bin/python bench/class_bodies.py [--requests 100] [--mb 99] [--concurrent 4] [--headers]
"""
import argparse
import http.client
import json
import os
import socket
import time
from concurrent.futures import ThreadPoolExecutor

from blockviz.demo.classroom import ClassServer

PATHS = [("GET", "/"), ("GET", "/events"), ("POST", "/prompt"), ("GET", "/demo/static/class.js"), ("POST", "/nowhere")]


def rss_mb(pid: int | str = "self") -> float:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) / 1024


def send(port: int, method: str, path: str, body: bytes) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request(method, path, body=body, headers={"Content-Type": "application/json"})
    status = conn.getresponse().status
    conn.close()
    return status


def send_headers(port: int, method: str, path: str, block: bytes) -> int:
    """A request whose header block is `block` (one long header), by hand: http.client would refuse it."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
        s.sendall(f"{method} {path} HTTP/1.1\r\nHost: bench\r\nX-Big: ".encode())
        s.sendall(block)
        s.sendall(b"\r\n\r\n")
        answer = b""
        while b"\r\n" not in answer and (chunk := s.recv(4096)):
            answer += chunk
    return int(answer.split()[1]) if answer else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--mb", type=int, default=99)
    parser.add_argument("--concurrent", type=int, default=4)
    parser.add_argument("--headers", action="store_true", help="send the MB as one header, not as the body")
    args = parser.parse_args()
    body = b"x" * (args.mb << 20)  # one buffer, sent by every client: the client side adds nothing per request
    what, request = ("header blocks", send_headers) if args.headers else ("bodies", send)
    server = ClassServer("en", "bench-key").start()
    before = rss_mb()
    started = time.perf_counter()
    with ThreadPoolExecutor(args.concurrent) as pool:
        statuses = list(pool.map(lambda i: request(server.port, *PATHS[i % len(PATHS)], body), range(args.requests)))
    seconds = time.perf_counter() - started
    after = rss_mb()
    ok = send(server.port, "GET", "/", b"")
    server.stop()
    counts = {s: statuses.count(s) for s in sorted(set(statuses))}
    print(f"{args.requests} requests with {args.mb} MB {what}, {args.concurrent} at a time, over {len(PATHS)} paths, "
          f"in {seconds:.1f} s: answers {json.dumps(counts)}; GET / afterwards {ok}")
    print(f"  RSS (server and clients, one process) before {before:7.1f} MB   after {after:7.1f} MB   "
          f"grew {after - before:+.1f} MB (the {args.mb} MB sent was allocated before)")


if __name__ == "__main__":
    main()
