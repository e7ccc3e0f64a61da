"""Strings of blockviz/exercises/kinds/cache_size.py: cache_size."""

STRINGS: dict[str, dict[str, str]] = {
    "cache_size.title": {"en": "How big must the cache be", "zh": "缓存要多大"},
    "cache_size.trace": {
        "en": "The `{trace}` trace (Mooncake, shipped with blockviz) replayed through an LRU cache of blocks of 512 "
              "tokens: the share of all prompt tokens the cache serves at each pool size (real tokens).",
        "zh": "`{trace}` 请求记录（Mooncake，随 blockviz 提供）经过一个每块 512 个 token 的 LRU 缓存："
              "每种池子大小（真实 token）下缓存服务的提示 token 占全部提示 token 的比例。"},
    "cache_size.pool": {"en": "pool (tokens)", "zh": "池子（token）"},
    "cache_size.rate": {"en": "prompt tokens served", "zh": "服务的提示 token"},
    "cache_size.model": {"en": "The model served is `{model}`; its KV shape:",
                         "zh": "服务的模型是 `{model}`，它的 KV 形状："},
    "cache_size.ask.gpu_gib": {
        "en": "A GPU pool alone: take the smallest pool of the table that serves at least {share}% of what an "
              "infinite cache serves ({max} of all prompt tokens). How many GiB of KV is that pool for this model?",
        "zh": "只有 GPU 池：取表中服务的比例不低于无限大缓存（全部提示 token 的 {max}）的 {share}% 的最小池子。"
              "对这个模型，这个池子的 KV 占多少 GiB？"},
    "cache_size.ask.cpu_gib": {
        "en": "A GPU pool of {gpu} tokens, and beside it a CPU pool as vLLM's CPU offloading keeps one: every block "
              "the GPU computes is stored to the CPU pool too, and a prompt's lookup continues in the CPU pool where "
              "the GPU's hits stop (both pools LRU). Take the smallest CPU pool of the table with which the two "
              "together serve at least {share}% of what an infinite cache serves ({max} of all prompt tokens). How "
              "many GiB of KV is that CPU pool for this model?",
        "zh": "GPU 池有 {gpu} 个 token，旁边按 vLLM 的 CPU 卸载方式配一个 CPU 池：GPU 算出的每个块也都存进 CPU 池，"
              "提示查找在 GPU 命中停下的地方接着到 CPU 池里找（两个池子都是 LRU）。取表中能让两者合计服务的比例不低于"
              "无限大缓存（全部提示 token 的 {max}）的 {share}% 的最小 CPU 池。对这个模型，这个 CPU 池的 KV 占多少 "
              "GiB？"},
    "cache_size.task": {"en": "{question} Answer in whole GiB, rounded up.", "zh": "{question}请写整数 GiB，向上取整。"},
    "cache_size.hint": {
        "en": "First the bytes a token: a key and a value vector for every layer and every KV head, head_dim numbers "
              "each, 2 bytes a bfloat16. Then the target: the share of the maximum, not of all tokens. A CPU pool "
              "that stores every block holds the most recent blocks the GPU holds too.",
        "zh": "先算每个 token 的字节：每一层、每个 KV 头各一个 K 向量和一个 V 向量，每个向量 head_dim 个数，"
              "bfloat16 每个数 2 字节。再算目标：是最大值的比例，不是全部 token 的比例。存下每个块的 CPU 池，"
              "也存着 GPU 存的那些最近的块。"},
    "cache_size.mis.no_kv_factor": {
        "en": "You counted only one of K and V. Every token stores both a key and a value vector: the factor 2.",
        "zh": "你只算了 K 和 V 中的一个。每个 token 都要存一个 K 向量和一个 V 向量：要乘 2。"},
    "cache_size.mis.query_heads": {
        "en": "You used the query heads. Only the KV heads (num_key_value_heads) store keys and values.",
        "zh": "你用了查询头的个数。只有 KV 头（num_key_value_heads）存 K 和 V。"},
    "cache_size.mis.decimal_units": {
        "en": "That is in GB (10^9 bytes). A GiB is 2^30 bytes.",
        "zh": "这是 GB（10^9 字节）。1 GiB 是 2^30 字节。"},
    "cache_size.mis.of_all": {
        "en": "That pool serves the share of all prompt tokens. The question asks for a share of the maximum, what "
              "an infinite cache serves.",
        "zh": "这个池子服务的是全部提示 token 的这个比例。题目问的是最大值（无限大缓存服务的）的比例。"},
    "cache_size.mis.victim": {
        "en": "That adds the two pools, as a victim cache would (the CPU keeping only what the GPU evicts). vLLM's "
              "offloading stores every block in the CPU pool too, so the CPU pool holds the GPU's blocks and more: "
              "together they reach as far as the larger pool alone.",
        "zh": "你把两个池子加在一起了，那是受害者缓存（CPU 只存 GPU 逐出的块）的算法。vLLM 的卸载把每个块都存进 "
              "CPU 池，CPU 池里有 GPU 的块还有更多：两者合起来只能达到较大那个池子单独的效果。"},
    "cache_size.solution.bytes": {"en": "KV bytes a token: {product}.", "zh": "每个 token 的 KV 字节数：{product}。"},
    "cache_size.solution.pool": {
        "en": "The target is {share}% of {max}, {target}; the first pool of the table that reaches it is {pool} "
              "tokens ({rate}).",
        "zh": "目标是 {max} 的 {share}%，即 {target}；表中第一个达到它的池子是 {pool} 个 token（{rate}）。"},
    "cache_size.solution.cpu": {
        "en": "The GPU pool of {gpu} tokens is smaller; a CPU pool that stores every block holds the most recent "
              "blocks, as an LRU pool of its own size would, so it must itself be that large.",
        "zh": "{gpu} 个 token 的 GPU 池更小；存下每个块的 CPU 池存的是最近的那些块，和同样大小的 LRU 池一样，"
              "所以它自己就得有那么大。"},
    "cache_size.solution.gib": {
        "en": "{pool} tokens × {bpt} bytes = {gib} GiB, so **{answer} GiB** rounded up.",
        "zh": "{pool} 个 token × {bpt} 字节 = {gib} GiB，向上取整为 **{answer} GiB**。"},
}
