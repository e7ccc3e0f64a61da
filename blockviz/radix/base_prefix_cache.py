"""The parameter and result types of a RadixCache's operations: SGLang's dataclasses of the same
names (`sglang/srt/mem_cache/base_prefix_cache.py`, 0.5.23), with the fields radix_cache.py reads
or sets. The others serve Mamba, sliding-window, hierarchical and sharded caches. Values are
array("q") of KV-pool slots where SGLang has torch tensors."""
from __future__ import annotations

import dataclasses
from array import array
from typing import Any, NamedTuple, Optional


@dataclasses.dataclass
class MatchPrefixParams:
    key: Any  # a RadixKey (radix_cache.py imports this module, so it is not imported here)


@dataclasses.dataclass
class InsertParams:
    key: Any = None  # a RadixKey
    value: Optional[array] = None
    # The inserting request already inserted [0, here) (req.kv.cache_inserted_len);
    # only the nodes past it count a hit, so a request counts each node once.
    inserted_len: int = 0
    priority: int = 0


@dataclasses.dataclass
class InsertResult:
    prefix_len: int
    total_len: int = 0
    last_device_node: Any = None


@dataclasses.dataclass
class EvictParams:
    num_tokens: int = 0


@dataclasses.dataclass
class EvictResult:
    num_tokens_evicted: int = 0


@dataclasses.dataclass
class IncLockRefResult:
    delta: Optional[int] = None


@dataclasses.dataclass
class DecLockRefParams:
    node_id: Optional[int] = None


@dataclasses.dataclass
class DecLockRefResult:
    delta: Optional[int] = None


class MatchResult(NamedTuple):
    """device_prefix_len: tokens matched, a multiple of page_size; last_device_node: the node the
    match ends at (split there if it ended inside an edge). With no host tier, last_host_node and
    best_match_node are the same node."""

    device_prefix_len: int
    last_device_node: Any
    last_host_node: Any
    best_match_node: Any
