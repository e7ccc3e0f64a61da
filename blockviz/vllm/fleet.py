"""Several vLLM engines: start N servers, watch them together, send one stream through a router.

Each instance is its own `blockviz vllm serve` process (serve.Server) with its own HTTP port,
KV-events endpoint and replay endpoint, all on loopback, as the pods behind llm-d or Dynamo are.
(vLLM's data_parallel_size 2 would put two engines behind one API server, whose own balancer
picks the engine by queue length, so an outside router could not choose; see docs/ARCHITECTURE.md.)
A Fleet made from settings only attaches to servers already running; `start()` (or `with`)
starts them, and any error or exit stops every one it started.

`compare()` runs one stream of prompts through each policy (router.py), resetting every
instance's prefix cache before each, and counts what vLLM itself reports it reused.
"""
import random
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from blockviz.hits import QUERIED_TOKENS, HitRate, hit_rate
from blockviz.vllm import router
from blockviz.vllm.client import Client
from blockviz.vllm.endpoints import check_endpoint, offset_port
from blockviz.vllm.serve import ServeError, Server, ServerSettings
from blockviz.vllm.watch import Watch

NAMES = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def instance_settings(base: ServerSettings, count: int) -> list[ServerSettings]:
    """`count` instances from one set of settings: instance i serves on port + i and publishes on
    the events port + 2i (its replay, by default, on the port after: + 2i + 1); ipc:// endpoints
    get a `-i` suffix. Instance 0 is exactly `base`."""
    if not 1 <= count <= len(NAMES):
        raise ServeError(f"--instances {count}: give 1 to {len(NAMES)}")
    return [replace(base, port=base.port + i, events=_shift(base.events, i),
                    replay=None if base.replay is None else _shift(base.replay, i)) for i in range(count)]


def log_path(log: str | Path, name: str) -> Path:
    """Instance `name`'s log beside `log`: vllm.log -> vllm-A.log."""
    log = Path(log)
    return log.with_name(f"{log.stem}-{name}{log.suffix}")


def _shift(endpoint: str, i: int) -> str:
    check_endpoint(endpoint)
    if i == 0:
        return endpoint
    return f"{endpoint}-{i}" if endpoint.startswith(("ipc://", "inproc://")) else offset_port(endpoint, 2 * i)


@dataclass(frozen=True)
class Routed:
    """One prompt of a stream: where it went, what was predicted, what vLLM reported."""
    choice: router.Choice
    prompt_tokens: int
    cached_tokens: int          # usage.prompt_tokens_details.cached_tokens of the chosen server


@dataclass
class PolicyRun:
    """One policy over a stream."""
    policy: str
    routed: list[Routed]
    metrics: dict[str, dict[str, float]] = field(default_factory=dict)   # per instance: /metrics deltas

    @property
    def prompt_tokens(self) -> int:
        return sum(r.prompt_tokens for r in self.routed)

    @property
    def cached_tokens(self) -> int:
        return sum(r.cached_tokens for r in self.routed)

    @property
    def hits(self) -> HitRate:
        """Prompt tokens vLLM took from its caches, over all prompt tokens (from its replies)."""
        return hit_rate((r.cached_tokens for r in self.routed), (r.prompt_tokens for r in self.routed))

    @property
    def hit_rate(self) -> float:
        return self.hits.value

    @property
    def metrics_hits(self) -> HitRate | None:
        """The same from the servers' /metrics (vllm:prefix_cache_hits / queries, summed); None before any."""
        queries = sum(m["queries"] for m in self.metrics.values())
        return HitRate(sum(m["hits"] for m in self.metrics.values()), queries, QUERIED_TOKENS) if queries else None

    @property
    def metrics_hit_rate(self) -> float | None:
        hits = self.metrics_hits
        return None if hits is None else hits.value

    @property
    def mispredicted(self) -> list[Routed]:
        """Prompts whose chosen server reported other cached tokens than the router predicted."""
        return [r for r in self.routed if r.choice.predicted != r.cached_tokens]

    @property
    def sent(self) -> Counter[str]:
        return Counter(r.choice.instance for r in self.routed)


class Fleet:
    """N vLLM servers by name ("A", "B", ...). Made from settings it only knows where they are;
    `start()`/`wait_ready()` or `with Fleet(...)` runs them and `stop()` stops every one."""

    def __init__(self, settings: list[ServerSettings], names: list[str] | None = None,
                 log: str | Path | None = None):
        names = list(names or NAMES[:len(settings)])
        if len(names) != len(settings) or len(set(names)) != len(names):
            raise ValueError(f"{len(settings)} instances need as many distinct names, got {names}")
        for what, values in (("HTTP port", [(s.host, s.port) for s in settings]),
                             ("events endpoint", [s.events for s in settings]),
                             ("replay endpoint", [s.replay_endpoint for s in settings])):
            if len(set(values)) != len(values):
                raise ServeError(f"each instance needs its own {what}: {values}")
        self.settings = dict(zip(names, settings))
        self.servers = {name: Server(s, log_path(log, name) if log else None) for name, s in self.settings.items()}

    @classmethod
    def of(cls, count: int, base: ServerSettings | None = None, log: str | Path | None = None) -> "Fleet":
        """`count` instances laid out from `base` as `blockviz vllm serve --instances N` does."""
        return cls(instance_settings(base or ServerSettings(), count), log=log)

    @property
    def names(self) -> list[str]:
        return list(self.settings)

    @property
    def instances(self) -> dict[str, str]:
        """Name -> the source its KV events have in a watch of this fleet (router.py's instances)."""
        return {name: s.events for name, s in self.settings.items()}

    @property
    def clients(self) -> dict[str, Client]:
        return {name: server.client for name, server in self.servers.items()}

    # -- running them --------------------------------------------------------------------

    def start(self) -> "Fleet":
        try:
            for server in self.servers.values():
                server.start()
        except BaseException:
            self.stop()
            raise
        return self

    def wait_ready(self, timeout: float = 900.0) -> "Fleet":
        """Until every instance serves; if one fails or time runs out, all are stopped."""
        deadline = time.monotonic() + timeout
        try:
            for name, server in self.servers.items():
                try:
                    server.wait_ready(max(1.0, deadline - time.monotonic()))
                except ServeError as e:
                    raise ServeError(f"instance {name}: {e}") from None
        except BaseException:
            self.stop()
            raise
        return self

    def exited(self) -> str | None:
        for name, server in self.servers.items():
            if (what := server.exited()) is not None:
                return f"instance {name}: {what}"
        return None

    def stop(self):
        """Stop every instance this fleet started (each one's group; the others even if one fails)."""
        errors = []
        for name, server in self.servers.items():
            try:
                server.stop()
            except Exception as e:   # stop the rest first, then say what went wrong
                errors.append(f"instance {name}: {e!r}")
        if errors:
            raise ServeError("; ".join(errors))

    def __enter__(self) -> "Fleet":
        return self.start().wait_ready()

    def __exit__(self, *exc):
        self.stop()

    # -- watching and routing ------------------------------------------------------------

    def watch(self, **options) -> Watch:
        """One Watch over every instance's events (and replay) endpoint; its sources are
        `self.instances`' values."""
        return Watch([s.events for s in self.settings.values()], None,
                     [s.replay_endpoint for s in self.settings.values()], **options)

    def reset_prefix_caches(self, token_id: int = 0):
        """Empty every instance's prefix cache (the servers need --dev-mode). vLLM publishes the
        AllBlocksCleared event with its next step, so each instance then runs a one-token prompt,
        which fills no block: a watch learns of the clear now, not with the next real prompt."""
        for client in self.clients.values():
            client.reset_prefix_cache()
            client.complete([token_id], max_tokens=1)

    def counters(self) -> dict[str, dict[str, float]]:
        """Each instance's prefix-cache queries and hits (tokens) from its /metrics."""
        return {name: client.prefix_cache_counters() for name, client in self.clients.items()}

    def route(self, watch: Watch, prompts: list[list[int]], policy: str, max_tokens: int = 1) -> PolicyRun:
        """Send `prompts` one after another, each where `policy` (router.KV_AWARE or
        router.ROUND_ROBIN) says, predicting from `watch` once the previous reply's events are in."""
        if policy not in (router.KV_AWARE, router.ROUND_ROBIN):
            raise ValueError(f"policy must be {router.KV_AWARE!r} or {router.ROUND_ROBIN!r}, got {policy!r}")
        before, sent, routed = self.counters(), Counter(), []
        for turn, prompt in enumerate(prompts):
            watch.settle()   # vLLM publishes a step's events just after the step
            choice = (router.choose(watch, prompt, self.instances, sent) if policy == router.KV_AWARE
                      else router.round_robin(watch, prompt, turn, self.instances))
            reply = self.clients[choice.instance].complete(prompt, max_tokens)
            sent[choice.instance] += 1
            routed.append(Routed(choice, reply.prompt_tokens, reply.cached_tokens))
        return PolicyRun(policy, routed, self._counted_since(before, sum(r.prompt_tokens for r in routed)))

    def _counted_since(self, before: dict, queried: int, timeout: float = 10.0) -> dict[str, dict[str, float]]:
        """/metrics deltas since `before`, once they count all `queried` prompt tokens (vLLM may
        update them a moment after the reply)."""
        deadline = time.monotonic() + timeout
        while True:
            after = self.counters()
            deltas = {name: {k: after[name][k] - before[name][k] for k in ("queries", "hits")} for name in self.names}
            if sum(d["queries"] for d in deltas.values()) >= queried or time.monotonic() > deadline:
                return deltas
            time.sleep(0.2)

    def compare(self, watch: Watch, prompts: list[list[int]],
                policies: tuple[str, ...] = (router.KV_AWARE, router.ROUND_ROBIN)) -> dict[str, PolicyRun]:
        """The same stream through each policy, every prefix cache emptied before each."""
        outcomes = {}
        for policy in policies:
            self.reset_prefix_caches()
            watch.settle()
            outcomes[policy] = self.route(watch, prompts, policy)
        return outcomes


def chat_stream(token_ids: list[int], users: int = 3, systems: int = 2, turns: int = 3, system_tokens: int = 64,
                message_tokens: int = 40, shuffle: int | None = None) -> list[list[int]]:
    """Prompts of a multi-turn chat service, cut from `token_ids` (a text, tokenized): `users`
    users, user u under system prompt u mod `systems`, taking turns; each turn's prompt is the
    user's whole conversation so far plus a new message (the replies are not fed back: a client
    that keeps only the user's side, or replies too short to fill a block). Users speak in order
    each turn, or, with `shuffle` (a seed), in an order drawn anew each turn: with users in a
    fixed order and as many users as a multiple of the instances, round-robin sends each user to
    the same instance every turn, which real arrivals do not."""
    need = systems * system_tokens + users * turns * message_tokens
    if len(token_ids) < need:
        raise ValueError(f"a stream of {users} users x {turns} turns needs {need} tokens of text, got {len(token_ids)}")
    rng = random.Random(shuffle)
    prompts = [token_ids[i * system_tokens:(i + 1) * system_tokens] for i in range(systems)]
    history = [list(prompts[u % systems]) for u in range(users)]
    start, stream = systems * system_tokens, []
    for turn in range(turns):
        order = list(range(users))
        if shuffle is not None:
            rng.shuffle(order)
        for u in order:
            at = start + (turn * users + u) * message_tokens
            history[u] += token_ids[at:at + message_tokens]
            stream.append(list(history[u]))
    return stream
