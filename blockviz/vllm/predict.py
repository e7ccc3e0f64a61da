"""How many prompt tokens vLLM will take from its prefix cache, predicted from the index alone.

vLLM hashes each full block of the prompt (its tokens, chained through the parent's hash) and
takes the longest run of leading blocks it finds cached, capped at num_tokens - 1 so that the
last token is always computed for its logits (kv_cache_manager.get_computed_blocks). The events
carry each block's tokens and parent, so the same walk can follow token content instead of
recomputing vLLM's hashes: block i hits if a cached block continues block i-1 with exactly its tokens.
"""
from blockviz.vllm.index import PrefixIndex


def cached_blocks(index: PrefixIndex, source: str, token_ids: list[int]) -> int:
    size = index.block_sizes.get(source)
    if size is None:
        return 0   # nothing stored yet
    most = (len(token_ids) - 1) // size if token_ids else 0
    parent, hits = None, 0
    while hits < most:
        block = index.child(source, parent, tuple(token_ids[hits * size:(hits + 1) * size]))
        if block is None:
            break
        parent, hits = block.hash, hits + 1
    return hits


def cached_tokens(index: PrefixIndex, source: str, token_ids: list[int]) -> int:
    return cached_blocks(index, source, token_ids) * index.block_sizes.get(source, 0)
