"""A stand-in for vLLM's ZmqEventPublisher, in process: the same sockets, frames, numbering and
replay, for the tests and bench/vllm_watch.py, which need no vLLM (and can do what vLLM never does
on purpose: drop a message, send a malformed one).

Its socket is an XPUB (a PUB that also hears subscriptions), so a test can wait until a watcher has
subscribed before the first batch (`wait_for_subscribers`) instead of sleeping past ZMQ's slow
joiner and hoping the machine was not busy.

Like vLLM's, it binds its PUB socket when the endpoint has a wildcard or is ipc/inproc and
connects otherwise; the replay ROUTER binds and answers [b"", start seq] with
[b"", topic, seq, payload] frames then the end marker (seq -1). `publish` sends on the caller's
thread; a thread of its own answers replay requests.
"""
import threading
import time
from collections import deque

import zmq

from blockviz.vllm.endpoints import publisher_binds
from blockviz.vllm.wire import Event, encode_batch, sequence_bytes


class Publisher:

    def __init__(self, endpoint: str, replay: str | None = None, topic: str = "", data_parallel_rank: int = 0,
                 form: str = "map", buffer_steps: int = 10_000):
        self.ctx = zmq.Context()
        self.pub = self.ctx.socket(zmq.XPUB)
        self.pub.setsockopt(zmq.XPUB_VERBOSE, 1)   # every subscriber's subscription, not only the first
        self.pub.setsockopt(zmq.SNDHWM, 0)
        self.pub.setsockopt(zmq.LINGER, 1000)
        self.endpoint = endpoint
        if publisher_binds(endpoint):
            self.pub.bind(endpoint)
        else:
            self.pub.connect(endpoint)
        self.router = None
        if replay is not None:
            self.router = self.ctx.socket(zmq.ROUTER)
            self.router.bind(replay)
        self.topic, self.rank, self.form = topic.encode(), data_parallel_rank, form
        self.buffer: deque[tuple[int, bytes]] = deque(maxlen=buffer_steps)
        self.lock = threading.Lock()
        self.next_seq = 0
        self.replays_answered = 0
        self._running = True
        self._replayer = None
        if self.router is not None:
            self._replayer = threading.Thread(target=self._serve_replays, daemon=True, name="publisher-replay")
            self._replayer.start()

    def publish(self, events: list[Event], drop: bool = False, ts: float | None = None) -> int:
        """Send one batch; `drop` keeps it for replay but never sends it live (a lost message)."""
        payload = encode_batch(time.time() if ts is None else ts, events, self.rank, self.form)
        return self.publish_payload(payload, drop)

    def publish_payload(self, payload: bytes, drop: bool = False) -> int:
        with self.lock:
            seq = self.next_seq
            self.next_seq += 1
            self.buffer.append((seq, payload))
        if not drop:
            self.pub.send_multipart([self.topic, sequence_bytes(seq), payload])
        return seq

    def wait_for_subscribers(self, n: int = 1, timeout: float = 60.0):
        """Return once `n` subscriptions have arrived: from then on no batch is lost to a late join."""
        deadline = time.monotonic() + timeout
        for _ in range(n):
            while True:
                left = deadline - time.monotonic()
                assert left > 0, f"no subscriber on {self.endpoint} after {timeout} s"
                if self.pub.poll(int(left * 1000)) and self.pub.recv()[:1] == b"\x01":
                    break

    def send_raw(self, frames: list[bytes]):
        """Frames that are not a well-formed batch (the tests' malformed and foreign messages)."""
        self.pub.send_multipart(frames)

    def _serve_replays(self):
        while self._running:
            if not self.router.poll(50):
                continue
            frames = self.router.recv_multipart()
            if len(frames) != 3:
                continue
            client, _, start = frames
            start_seq = int.from_bytes(start, "big")
            with self.lock:
                kept = [(seq, payload) for seq, payload in self.buffer if seq >= start_seq]
            for seq, payload in kept:
                self.router.send_multipart([client, b"", self.topic, sequence_bytes(seq), payload])
            self.router.send_multipart([client, b"", b"", sequence_bytes(-1), b""])
            self.replays_answered += 1

    def restart(self):
        """Numbering from 0 again, an empty buffer: what a new engine process does."""
        with self.lock:
            self.buffer.clear()
            self.next_seq = 0

    def close(self):
        self._running = False
        if self._replayer is not None:
            self._replayer.join(timeout=2)
        self.ctx.destroy(linger=0)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
