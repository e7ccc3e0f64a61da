"""Watch a real vLLM engine's prefix cache through its KV events: `blockviz.vllm.watch(...)`.

A Watch subscribes in the background from the moment it is made (the server may start before or
after it), keeps the index of cached block chains, and follows the Timeline interface the views
use: each received batch is one step; `picture(step)` is the cache at that step; `cursor`,
`seek`, `first_step`, `last_step`, `on_change`. `cached_tokens(prompt)` predicts vLLM's reuse.
"""
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from blockviz.vllm import predict, recording
from blockviz.vllm.endpoints import check_endpoint, offset_port
from blockviz.vllm.index import MAX_PAYLOAD_BYTES, BlockRecord, PrefixIndex, StepInfo
from blockviz.vllm.subscriber import Link, Subscriber
from blockviz.vllm.wire import WireError, decode_batch

DEFAULT_EVENTS = "tcp://127.0.0.1:5557"
MAX_BATCH_BYTES = 8 << 20   # one engine step's events are well under 1 MB; a larger batch is refused
MAX_PROBLEM_SOURCES = 256   # sources counted apart in problem_counts; the rest together
OTHER_SOURCES = "(other sources)"
DEFAULT_API = "http://127.0.0.1:8000"

Listener = Callable[[int], None]


@dataclass(frozen=True)
class Problem:
    source: str
    reason: str
    at: float


@dataclass(frozen=True)
class Picture:
    """The prefix cache at one step, what the views draw (the Snapshot of this source)."""
    step: int
    blocks: list[BlockRecord]        # cached at this step, in the order they were stored
    info: StepInfo                   # the batch of this step: what it stored and removed
    evictions: list[BlockRecord]     # the latest removals up to this step, oldest first
    first_step: int
    last_step: int

    @property
    def stored_now(self) -> set[int]:
        return {id(r) for r in self.info.stored}


class Watch:
    """See `watch()`. subscribe=False makes a watch fed only through `batch()` (a loaded recording)."""

    def __init__(self, events: str | list[str] = DEFAULT_EVENTS, api: str | None = None,
                 replay: str | list[str | None] | None = None, *, topic: str = "", host: str | None = None,
                 data_parallel_size: int = 1,
                 history: int | None = 10_000, tokenizer=None, replay_timeout: float = 2.0, subscribe: bool = True):
        endpoints = [events] if isinstance(events, str) else list(events)
        if isinstance(replay, str) and len(endpoints) > 1:
            raise ValueError("each engine has its own replay endpoint: give a list, one per events endpoint")
        replays = replay if isinstance(replay, list) else [replay] * len(endpoints)
        if len(replays) != len(endpoints):
            raise ValueError(f"{len(endpoints)} event endpoints but {len(replays)} replay endpoints")
        if data_parallel_size < 1:
            raise ValueError(f"data_parallel_size must be at least 1, got {data_parallel_size}")
        self.links = [Link(offset_port(check_endpoint(e), rank),
                           None if r is None else offset_port(check_endpoint(r), rank), topic, host)
                      for e, r in zip(endpoints, replays) for rank in range(data_parallel_size)]
        self.api = api
        self.index = PrefixIndex(history)
        self.lock = threading.RLock()
        self.problems: deque[Problem] = deque(maxlen=50)
        self.problem_counts: Counter[str] = Counter()
        self.follow = True          # the cursor follows the newest step until a seek moves it back
        self.last_arrival = time.monotonic()   # when the newest batch was taken in (settle counts from it)
        self._cursor = -1
        self._listeners: list[Listener] = []
        self._restarted: set[str] = set()
        self._tokenizer = tokenizer
        self.closed = False
        self.meta = {"kind": "vllm", "sources": [link.events for link in self.links], "history": history}
        self.subscriber = Subscriber(self.links, self, replay_timeout) if subscribe else None

    # -- what the subscriber hands over (its thread) -----------------------------------------

    def batch(self, source: str, seq: int, payload: bytes, via: str, lost: int, received_at: float | None = None):
        if len(payload) > MAX_BATCH_BYTES:  # decoding it would take far more memory than its bytes
            self.problem(source, f"seq {seq}: a batch of {len(payload):,} bytes, more than {MAX_BATCH_BYTES:,}; skipped")
            return
        try:
            batch = decode_batch(payload)
        except WireError as e:
            self.problem(source, f"seq {seq}: {e}")
            return
        for reason in batch.problems:
            self.problem(source, f"seq {seq}: {reason}")
        info = StepInfo(0, source, seq, batch.ts, time.time() if received_at is None else received_at, payload, via,
                        lost_before=lost)
        with self.lock:
            if source in self._restarted:
                self._restarted.discard(source)
                self.index.clear_source(info)
            self.index.apply(info, batch.events)
            self.last_arrival = time.monotonic()
            if self.follow:
                self._cursor = info.step
        self._notify()

    def problem(self, source: str, reason: str):
        with self.lock:
            self.problems.append(Problem(source, reason, time.time()))
            counted = source in self.problem_counts or len(self.problem_counts) < MAX_PROBLEM_SOURCES
            self.problem_counts[source if counted else OTHER_SOURCES] += 1

    def restarted(self, source: str):
        with self.lock:
            self._restarted.add(source)
            self.problem(source, "the publisher restarted (sequence back to 0): a new engine, an empty cache")

    # -- the Timeline interface ----------------------------------------------------------

    @property
    def first_step(self) -> int:
        return self.index.first_step

    @property
    def last_step(self) -> int:
        return self.index.last_step

    @property
    def cursor(self) -> int:
        with self.lock:
            if self._cursor < self.first_step <= self.last_step:
                self._cursor = self.first_step   # the window moved past the step shown
            return self._cursor

    def seek(self, step: int) -> "Picture":
        with self.lock:
            step = self.index.check_step(step)
            self._cursor, self.follow = step, step == self.last_step
        self._notify()
        return self.picture(step)

    def forward(self) -> "Picture":
        return self.seek(min(self.cursor + 1, self.last_step))

    def back(self) -> "Picture":
        return self.seek(max(self.cursor - 1, self.first_step))

    def live(self):
        """Follow the newest step again."""
        with self.lock:
            self.follow, self._cursor = True, self.last_step
        self._notify()

    def on_change(self, listener: Listener):
        """Call listener(cursor) whenever a batch arrives or the cursor moves (from the watch's thread too)."""
        self._listeners.append(listener)

    def _notify(self):
        cursor = self.cursor
        for listener in list(self._listeners):
            listener(cursor)

    def picture(self, step: int | None = None, evictions: int = 64) -> Picture:
        with self.lock:
            step = self.index.check_step(self.cursor if step is None else step)
            return Picture(step, self.index.resident(step), self.index.step_info(step),
                           self.index.evictions(step, evictions), self.first_step, self.last_step)

    snapshot = picture

    def events(self, step: int | None = None) -> list:
        """The events of a step's batch, decoded again from the payload kept for it."""
        with self.lock:
            info = self.index.step_info(self.cursor if step is None else step)
        if info.payload_dropped:
            raise ValueError(f"step {info.step}'s raw events are no longer kept (the newest "
                             f"{MAX_PAYLOAD_BYTES >> 20} MB of batches are): its effect on the cache is")
        return decode_batch(info.payload).events

    # -- prediction and waiting ----------------------------------------------------------

    @property
    def sources(self) -> list[str]:
        with self.lock:
            return self.index.sources()

    def sync(self, timeout: float = 10.0):
        """Take in every message already received (gaps being filled from replay included)."""
        if self.subscriber is not None and not self.subscriber.sync(timeout):
            raise TimeoutError(f"the watch did not catch up within {timeout:g} s")

    def settle(self, quiet: float = 0.3, timeout: float = 30.0):
        """Wait until no batch has arrived for `quiet` seconds, counted from the call at the earliest
        (vLLM publishes a step's events just after the step, so a reply can come back a moment
        before its events). It ends `quiet` after the last arrival, not at the next multiple of it."""
        start = time.monotonic()
        while True:
            self.sync()
            now = time.monotonic()
            left = max(start, self.last_arrival) + quiet - now
            if left <= 0:
                return
            if now + left > start + timeout:
                raise TimeoutError(f"KV events kept arriving for {timeout:g} s")
            time.sleep(left)

    def wait_for_step(self, step: int, timeout: float = 30.0):
        deadline = time.monotonic() + timeout
        while self.last_step < step:
            if time.monotonic() > deadline:
                raise TimeoutError(f"no step {step} within {timeout:g} s (last step {self.last_step})")
            time.sleep(0.01)

    def cached_tokens(self, token_ids: list[int], source: str | None = None) -> int:
        """Prompt tokens vLLM will take from its prefix cache for `token_ids` now, after taking in
        every message already received."""
        self.sync()
        with self.lock:
            return predict.cached_tokens(self.index, self._source(source), list(token_ids))

    def _source(self, source: str | None) -> str:
        sources = self.index.sources()
        if source is not None or not sources:
            return source or ""
        if len(sources) > 1:
            raise ValueError(f"this watch follows {len(sources)} engines; name one with source=: {sources}")
        return sources[0]

    # -- text, server counters, saving --------------------------------------------------

    @property
    def tokenizer(self):
        if self._tokenizer is None:
            from blockviz.llm import TokenizerFile   # torch only when text is asked for
            from blockviz.models import DEFAULT_MODEL_DIR
            self._tokenizer = TokenizerFile(DEFAULT_MODEL_DIR / "tokenizer.json")
        elif isinstance(self._tokenizer, (str, Path)):
            from blockviz.llm import TokenizerFile
            path = Path(self._tokenizer)
            self._tokenizer = TokenizerFile(path / "tokenizer.json" if path.is_dir() else path)
        return self._tokenizer

    def decode(self, token_ids) -> str:
        return self.tokenizer.decode(list(token_ids))

    def server_counters(self) -> dict[str, float] | None:
        """Prefix-cache queries and hits (tokens) from the server's /metrics; None without `api` or
        when the server does not answer."""
        if self.api is None:
            return None
        from blockviz.vllm.client import Client, ServerError
        try:
            return Client(self.api, timeout=2).prefix_cache_counters()
        except ServerError:
            return None

    def save(self, path: str | Path):
        """Write the kept steps as a recording (recording.py); `blockviz.vllm.load(path)` replays it."""
        with self.lock:
            recording.save(self.index, path)

    def close(self):
        self.closed = True
        if self.subscriber is not None:
            self.subscriber.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self) -> str:
        return (f"<vLLM watch of {', '.join(self.meta['sources'])}: steps {self.first_step}..{self.last_step}, "
                f"{len(self.index.live)} blocks cached, {sum(self.problem_counts.values())} problems>")


def watch(events: str | list[str] = DEFAULT_EVENTS, api: str | None = DEFAULT_API,
          replay: str | list[str | None] | None = None, **options) -> Watch:
    """Start watching vLLM's KV events at `events` (the endpoint as vLLM's --kv-events-config names
    it); `replay` is its replay endpoint (gaps are filled from it), `api` its HTTP address (hit rate
    from /metrics). Options: topic, host (the machine of a vLLM whose endpoints have a wildcard;
    default loopback), data_parallel_size, history (steps kept; None keeps all),
    tokenizer (a tokenizer.json or model folder; default the embedded model), replay_timeout."""
    return Watch(events, api, replay, **options)


def load(path: str | Path, tokenizer=None) -> Watch:
    """A saved watch, replayed offline through the same decoding and index."""
    header, blocks, messages = recording.read(path)
    w = Watch(history=header.history, tokenizer=tokenizer, subscribe=False, api=None)
    w.meta["sources"] = sorted({m.source for m in messages} | {b.source for b in blocks})
    w.index.next_step = header.first_step
    for b in blocks:
        w.index.restore(BlockRecord(b.source, b.hash, b.parent, tuple(b.token_ids), b.block_size, b.medium,
                                    b.lora_name, b.extra_keys, b.group_idx, b.stored_at, copies=b.copies))
    for m in messages:
        w.batch(m.source, m.seq, m.payload, m.via, m.lost_before, received_at=m.received_at)
    return w


def watch_until(path: str | Path, step: int) -> Watch:
    """A recording replayed up to `step` (nothing received for step -1), through Watch.batch as `load` does."""
    header, blocks, messages = recording.read(path)
    if blocks:
        raise ValueError(f"{path} starts after step 0; replaying it up to a step needs the whole stream")
    w = Watch(history=header.history, subscribe=False, api=None)
    for m in messages:
        if m.step > step:
            break
        w.batch(m.source, m.seq, m.payload, m.via, m.lost_before, received_at=m.received_at)
    return w
