"""A background thread that takes vLLM's KV-event messages off ZMQ sockets, in order.

One SUB socket per publisher endpoint (one per engine and data-parallel rank), bound or connected
as vLLM's rule requires (endpoints.py), and a DEALER to each replay ROUTER when a gap needs
filling. The thread is the only user of the sockets; it hands each batch, in sequence order, to a
sink (the Watch), and wakes up for `sync()`, which returns once everything already received has
been handed over.
"""
import itertools
import threading
import time
from dataclasses import dataclass
from typing import Protocol

import zmq

from blockviz.vllm.endpoints import peer_address, publisher_binds
from blockviz.vllm.sequencer import Sequencer

MAX_PUBLISHERS = 1024   # sequencing state kept (one per engine, or per topic on a shared address)
from blockviz.vllm.wire import WireError, parse_sequence, sequence_bytes

END_OF_REPLAY = -1


class Sink(Protocol):
    def batch(self, source: str, seq: int, payload: bytes, via: str, lost: int) -> None: ...
    def problem(self, source: str, reason: str) -> None: ...
    def restarted(self, source: str) -> None: ...


@dataclass
class Link:
    """One publisher endpoint as vLLM is configured with it, and its replay endpoint if any."""
    events: str
    replay: str | None = None
    topic: str = ""
    host: str | None = None    # where a binding vLLM runs (its wildcard endpoints are connected to there)


class Publisher:
    """Sequencing state of one publisher, and its replay socket while a replay runs."""

    def __init__(self, link: Link, source: str):
        self.link, self.source = link, source
        self.seq = Sequencer(has_replay=link.replay is not None)
        self.dealer: zmq.Socket | None = None
        self.replay_since = 0.0


class Subscriber:

    def __init__(self, links: list[Link], sink: Sink, replay_timeout: float = 2.0, catch_up: bool = True):
        self.links, self.sink, self.replay_timeout = links, sink, replay_timeout
        self.ctx = zmq.Context()
        self.subs: list[zmq.Socket] = []
        self.publishers: dict[tuple, Publisher] = {}   # least recently heard from first
        self.forgotten = 0                               # publishers forgotten past MAX_PUBLISHERS
        try:
            for link in links:
                self.subs.append(self._open_sub(link))
        except zmq.ZMQError as e:
            self.ctx.destroy(linger=0)
            raise OSError(f"cannot listen for KV events on {link.events}: {e}") from None
        self.wake_address = f"inproc://blockviz-wake-{id(self)}"
        self._wake_in = self.ctx.socket(zmq.PAIR)
        self._wake_in.bind(self.wake_address)
        self._wake_out = self.ctx.socket(zmq.PAIR)
        self._wake_out.connect(self.wake_address)
        self._wake_lock = threading.Lock()
        self._tickets = itertools.count(1)
        self._synced = threading.Condition()
        self._done_ticket = 0
        self._running = True
        self._poller = zmq.Poller()   # used by the thread only, once it starts
        for sub in self.subs + [self._wake_in]:
            self._poller.register(sub, zmq.POLLIN)
        if catch_up:   # what the engine cached before this watch started
            for link in links:
                if link.replay is not None:
                    self._ask_replay(self._publisher(link, link.topic))
        self.thread = threading.Thread(target=self._run, name="blockviz-vllm-watch", daemon=True)
        self.thread.start()

    def _open_sub(self, link: Link) -> zmq.Socket:
        sub = self.ctx.socket(zmq.SUB)
        sub.setsockopt(zmq.RCVHWM, 0)          # never drop on our side: a slow view must not lose events
        sub.setsockopt(zmq.SUBSCRIBE, link.topic.encode())
        if "[" in link.events:
            sub.setsockopt(zmq.IPV6, 1)
        if publisher_binds(link.events):
            sub.connect(peer_address(link.events, link.host))
        else:
            sub.bind(link.events)
        return sub

    def _publisher(self, link: Link, topic: str) -> Publisher:
        # with a replay endpoint a link is one publisher; without, engines sharing a bound
        # address are told apart by their topics
        key = (id(link),) if link.replay is not None else (id(link), topic)
        publisher = self.publishers.pop(key, None)
        if publisher is None:
            name = link.events + (f" [{topic}]" if topic else "")
            publisher = Publisher(link, name)
            if len(self.publishers) >= MAX_PUBLISHERS:
                self._forget_one()
        self.publishers[key] = publisher   # now the most recent
        return publisher

    def _forget_one(self):
        """The publisher heard from least recently (not one in a replay): a stream of made-up topics
        cannot grow the watch."""
        key = next((k for k, p in self.publishers.items() if p.dealer is None), None)
        if key is None:
            return
        del self.publishers[key]
        self.forgotten += 1
        if self.forgotten == 1:
            self.sink.problem("watch", f"more than {MAX_PUBLISHERS} publishers (topics): the least recently "
                                       f"heard from are forgotten (counted in subscriber.forgotten)")

    # -- the foreground's side ---------------------------------------------------------

    def sync(self, timeout: float = 10.0) -> bool:
        """Wait until every message already received has been handed to the sink."""
        if not self.thread.is_alive():
            return True
        with self._wake_lock:
            ticket = next(self._tickets)
            self._wake_out.send(ticket.to_bytes(8, "big"))
        with self._synced:
            return self._synced.wait_for(lambda: self._done_ticket >= ticket or not self._running, timeout)

    def close(self):
        if not self._running:
            return
        self._running = False
        with self._wake_lock:
            self._wake_out.send(b"\0" * 8)
        self.thread.join(timeout=5)
        self.ctx.destroy(linger=0)

    # -- the thread ----------------------------------------------------------------------

    def _run(self):
        wanted = 0
        while self._running:
            try:
                wanted = self._turn(wanted)
            except Exception as e:   # a bug must not silently stop the watch: say so and go on
                self.sink.problem("watch", f"internal error, the watch goes on: {e!r}")
        with self._synced:
            self._synced.notify_all()

    def _turn(self, wanted: int) -> int:
        """One round: wake-ups, live messages, replay answers, timeouts; then answer a waiting sync."""
        ready = dict(self._poller.poll(50))
        if self._wake_in in ready:
            while self._wake_in.poll(0):
                wanted = max(wanted, int.from_bytes(self._wake_in.recv(), "big"))
        for link, sub in zip(self.links, self.subs):
            if sub in ready:
                self._drain_live(link, sub)
        for publisher in list(self.publishers.values()):
            if publisher.dealer is not None and publisher.dealer in ready:
                self._drain_replay(publisher)
        self._check_timeouts()
        if wanted > self._done_ticket and not self._busy():
            with self._synced:
                self._done_ticket = wanted
                self._synced.notify_all()
        return wanted

    def _busy(self) -> bool:
        """Messages waiting on a socket, or held for a replay that has not answered yet."""
        if any(p.seq.held and p.dealer is not None for p in self.publishers.values()):
            return True
        return any(sub.poll(0) for sub in self.subs)

    def _drain_live(self, link: Link, sub: zmq.Socket, most: int = 10_000):
        for _ in range(most):
            try:
                frames = sub.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return
            if len(frames) != 3:
                self.sink.problem(link.events, f"a message of {len(frames)} frames, not [topic, seq, payload]")
                continue
            topic_bytes, seq_bytes, payload = frames
            try:
                seq = parse_sequence(seq_bytes)
                topic = topic_bytes.decode()
            except (WireError, UnicodeDecodeError) as e:
                self.sink.problem(link.events, f"unreadable message header: {e}")
                continue
            publisher = self._publisher(link, topic)
            was_holding = bool(publisher.seq.held)
            ready, ask, restarted = publisher.seq.live(seq, payload)
            if publisher.seq.held and not was_holding:
                publisher.replay_since = time.monotonic()   # the replay's answer is awaited from now
            if restarted:
                self.sink.restarted(publisher.source)
            if ask:
                self._ask_replay(publisher)
            self._hand_over(publisher, ready)

    def _ask_replay(self, publisher: Publisher):
        if publisher.dealer is not None:
            return   # one replay at a time; it covers everything after the seq it asked from
        start = publisher.seq.ask_replay()
        dealer = self.ctx.socket(zmq.DEALER)
        dealer.setsockopt(zmq.LINGER, 0)
        dealer.connect(peer_address(publisher.link.replay, publisher.link.host))
        dealer.send_multipart([b"", sequence_bytes(start)])
        publisher.dealer, publisher.replay_since = dealer, time.monotonic()
        self._poller.register(dealer, zmq.POLLIN)

    def _drain_replay(self, publisher: Publisher):
        while publisher.dealer is not None:
            try:
                frames = publisher.dealer.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return
            # [b"", topic, seq, payload] since vLLM 0.3x; [b"", seq, payload] before
            if len(frames) not in (3, 4) or frames[0] != b"" or len(frames[-2]) != 8:
                self.sink.problem(publisher.source, f"unexpected replay reply of {len(frames)} frames")
                continue
            seq = parse_sequence(frames[-2])
            if seq == END_OF_REPLAY:
                self._end_replay(publisher)
                return
            self._hand_over(publisher, publisher.seq.replayed(seq, frames[-1]))

    def _end_replay(self, publisher: Publisher):
        self._poller.unregister(publisher.dealer)
        publisher.dealer.close(linger=0)
        publisher.dealer = None
        self._hand_over(publisher, publisher.seq.replay_done())

    def _check_timeouts(self):
        now = time.monotonic()
        for publisher in self.publishers.values():
            # a catch-up replay may wait for a server that is not up yet; one that holds
            # live batches back may not
            if publisher.dealer is None or not publisher.seq.held:
                continue
            if now - publisher.replay_since > self.replay_timeout:
                self.sink.problem(publisher.source, f"replay endpoint {publisher.link.replay} did not answer "
                                  f"within {self.replay_timeout:g} s; going on without the missing batches")
                self._end_replay(publisher)

    def _hand_over(self, publisher: Publisher, ready):
        for reason in publisher.seq.take_notes():
            self.sink.problem(publisher.source, reason)
        for seq, payload, via, lost in ready:
            self.sink.batch(publisher.source, seq, payload, via, lost)
