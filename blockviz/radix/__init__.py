"""SGLang's radix-tree prefix cache, kept as SGLang writes it (release 0.5.23).

radix_cache.py and evict_policy.py are SGLang's `python/sglang/srt/mem_cache/` files, line for
line except for the differences tests/radix/test_upstream_text.py lists (summed up in
docs/ARCHITECTURE.md, "Differences from SGLang"). The other modules hold, under SGLang's module
names, only what those two files import: the parameter and result types (base_prefix_cache.py,
cache_init_params.py), the eviction-policy table (utils.py) and a logical clock (clock.py).
"""
