"""SGLang's eviction-policy table and its factory, from `sglang/srt/mem_cache/utils.py` (0.5.23),
the one part of that module radix_cache.py uses."""
from typing import Any, Callable, Optional

from blockviz.radix.evict_policy import (
    EvictionStrategy,
    FIFOStrategy,
    FILOStrategy,
    LFUStrategy,
    LRUStrategy,
    MRUStrategy,
    PriorityStrategy,
    SLRUStrategy,
    TLRUStrategy,
)

_EVICTION_POLICY_FACTORIES: dict[str, Callable[..., EvictionStrategy]] = {
    "lru": LRUStrategy,
    "lfu": LFUStrategy,
    "fifo": FIFOStrategy,
    "mru": MRUStrategy,
    "filo": FILOStrategy,
    "priority": PriorityStrategy,
    "slru": SLRUStrategy,
    "tlru": TLRUStrategy,
}


def get_eviction_strategy(
    eviction_policy: str, config: Optional[dict[str, Any]] = None
) -> EvictionStrategy:
    """Build the eviction strategy; ``config`` is passed to it as keyword arguments."""
    policy = eviction_policy.lower()
    try:
        factory = _EVICTION_POLICY_FACTORIES[policy]
    except KeyError:
        supported = "', '".join(_EVICTION_POLICY_FACTORIES)
        raise ValueError(
            f"Unknown eviction policy: {policy}. Supported policies: '{supported}'."
        ) from None
    return factory(**config) if config else factory()
