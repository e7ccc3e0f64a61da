"""A ZMQ hop between vLLM and a watch that loses chosen messages or slips in malformed ones,
the way a real network or a stranger on the address would, so a watch meets gaps and junk from
a real engine."""
import threading

import zmq


class Relay:

    def __init__(self, upstream: str, downstream: str):
        self.ctx = zmq.Context()
        self.sub = self.ctx.socket(zmq.SUB)
        self.sub.setsockopt(zmq.SUBSCRIBE, b"")
        self.sub.connect(upstream)
        self.pub = self.ctx.socket(zmq.PUB)
        self.pub.bind(downstream)
        self.drop: set[int] = set()          # sequence numbers not passed on
        self.inject: dict[int, list[bytes]] = {}   # frames sent just before this sequence number
        self.seen: list[int] = []
        self._running = True
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while self._running:
            if not self.sub.poll(50):
                continue
            topic, seq, payload = self.sub.recv_multipart()
            n = int.from_bytes(seq, "big")
            self.seen.append(n)
            if n in self.inject:
                self.pub.send_multipart(self.inject.pop(n))
            if n not in self.drop:
                self.pub.send_multipart([topic, seq, payload])

    def close(self):
        self._running = False
        self.thread.join(timeout=2)
        self.ctx.destroy(linger=0)
