"""The settings of a RadixCache: the fields of SGLang's CacheInitParams
(`sglang/srt/mem_cache/cache_init_params.py`, 0.5.23) that radix_cache.py reads. The others
configure parallel groups, KV events, metrics, hybrid (SWA, Mamba) and hierarchical caches."""
from __future__ import annotations

import dataclasses
from typing import Any, Optional


@dataclasses.dataclass
class CacheInitParams:
    disable: bool
    req_to_token_pool: Any
    token_to_kv_pool_allocator: Any  # frees evicted values: free_segment(values, start_pos=0)
    page_size: int

    is_eagle: bool = False
    eviction_policy: str = "lru"
    # Keyword arguments for the eviction policy's constructor; see the strategy
    # classes in evict_policy.py for what each policy accepts.
    eviction_policy_config: Optional[dict[str, Any]] = None
