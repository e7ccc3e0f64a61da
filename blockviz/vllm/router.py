"""Which of several vLLM engines a prompt should go to: a KV-aware router, and round-robin.

KV-aware routers (llm-d's precise prefix-cache scorer, Dynamo's KV router) build an index of
every engine's cached blocks from the engines' KV events, score each engine by the prompt tokens
its cache already holds (the longest run of leading full blocks), and send the prompt to the
best. `choose` does that from the same events: each instance's predicted cached prefix is what
`predict.py` says vLLM will reuse (whole blocks, capped at num_tokens - 1).

The tie rule, stated once: the longest cached prefix wins; among instances that hold equally
long ones (all of them, for a prompt nobody has seen), the one with the fewest requests (`load`:
requests in flight, or sent so far in a stream that waits for each reply); then the first in
instance order. Without the load rule every unseen prompt would land on the first instance.
Round-robin ignores the caches: request n goes to instance n mod N.

An instance is a name and its source in the index (the events endpoint its Watch subscribes
to); `fleet.Fleet.instances` gives them for servers it started.
"""
from collections.abc import Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Union

from blockviz.i18n import t
from blockviz.vllm import predict
from blockviz.vllm.index import PrefixIndex

if TYPE_CHECKING:
    from blockviz.vllm.watch import Watch

Instances = Mapping[str, str]              # instance name -> its source in the index
Cache = Union[PrefixIndex, "Watch"]        # a Watch is read under its lock, after a sync

LONGEST, TIE_LOAD, TIE_ORDER, ROUND_ROBIN = "longest", "tie-load", "tie-order", "round-robin"
KV_AWARE = "kv-aware"


@dataclass(frozen=True)
class Choice:
    """Where a prompt goes, and why."""
    instance: str
    cached_tokens: dict[str, int]     # predicted per instance, in instance order
    reason: str                       # LONGEST, TIE_LOAD, TIE_ORDER or ROUND_ROBIN
    policy: str                       # KV_AWARE or ROUND_ROBIN
    tied: tuple[str, ...] = ()        # the instances that shared the longest prefix (KV-aware)
    load: dict[str, int] = field(default_factory=dict)

    @property
    def predicted(self) -> int:
        """Prompt tokens the chosen instance will take from its cache."""
        return self.cached_tokens[self.instance]

    @property
    def best(self) -> int:
        return max(self.cached_tokens.values(), default=0)


def instances_of(cache: Cache) -> dict[str, str]:
    """Every source the index (or Watch) has seen, named by itself."""
    return {source: source for source in _index(cache).sources()}


def cached_per_instance(cache: Cache, token_ids: list[int], instances: Instances | None = None) -> dict[str, int]:
    """The prompt tokens each instance would take from its prefix cache now."""
    tokens = list(token_ids)
    with _reading(cache):
        index = _index(cache)
        instances = instances_of(index) if instances is None else instances
        return {name: predict.cached_tokens(index, source, tokens) for name, source in instances.items()}


def choose(cache: Cache, token_ids: list[int], instances: Instances | None = None,
           load: Mapping[str, int] | None = None) -> Choice:
    """The instance a KV-aware router sends `token_ids` to (the tie rule is in the module docstring).

    `cache` is a PrefixIndex, or a Watch (its received messages are taken in first); `instances`
    maps names to sources (default: every source, named by itself); `load` counts each instance's
    requests (missing: 0)."""
    cached = cached_per_instance(cache, token_ids, instances)
    if not cached:
        raise ValueError("no instances to choose from: no engine has sent KV events yet, so name them")
    load = {name: (load or {}).get(name, 0) for name in cached}
    best = max(cached.values())
    tied = tuple(name for name, n in cached.items() if n == best)
    if len(tied) == 1:
        return Choice(tied[0], cached, LONGEST, KV_AWARE, tied, load)
    fewest = min(load[name] for name in tied)
    least_loaded = [name for name in tied if load[name] == fewest]
    reason = TIE_LOAD if len(least_loaded) < len(tied) else TIE_ORDER
    return Choice(least_loaded[0], cached, reason, KV_AWARE, tied, load)


def round_robin(cache: Cache, token_ids: list[int], turn: int, instances: Instances | None = None) -> Choice:
    """Request number `turn` (from 0) goes to instance turn mod N, whatever is cached; the
    predicted cached tokens are still filled in, to compare."""
    cached = cached_per_instance(cache, token_ids, instances)
    if not cached:
        raise ValueError("no instances to choose from: no engine has sent KV events yet, so name them")
    names = list(cached)
    return Choice(names[turn % len(names)], cached, ROUND_ROBIN, ROUND_ROBIN)


def explain(choice: Choice, lang: str = "en") -> str:
    """One sentence: why the choice was made."""
    others = ", ".join(t("router.tokens_at", lang, name=name, n=n) for name, n in choice.cached_tokens.items())
    if choice.reason == ROUND_ROBIN:
        return t("router.why.round_robin", lang, name=choice.instance, n=choice.predicted, all=others)
    if choice.reason == LONGEST:
        return t("router.why.longest", lang, name=choice.instance, n=choice.predicted, all=others)
    tied = t("router.list_sep", lang).join(choice.tied)
    unseen = choice.best == 0   # nobody holds any of it: the tie is among all instances
    key = {(TIE_LOAD, False): "router.why.tie_load", (TIE_ORDER, False): "router.why.tie_order",
           (TIE_LOAD, True): "router.why.cold_load", (TIE_ORDER, True): "router.why.cold_order"}[choice.reason, unseen]
    return t(key, lang, name=choice.instance, n=choice.best, tied=tied, load=choice.load[choice.instance])


def _index(cache: Cache) -> PrefixIndex:
    return cache if isinstance(cache, PrefixIndex) else cache.index


def _reading(cache: Cache):
    """Held while the index is read: a Watch's lock, once its received messages are taken in."""
    if isinstance(cache, PrefixIndex):
        return nullcontext()
    cache.sync()
    return cache.lock
