"""Strings of blockviz/exercises/kinds/kvbytes.py: kv_bytes."""

STRINGS: dict[str, dict[str, str]] = {
    "kv_bytes.title": {"en": "What the KV cache costs", "zh": "KV 缓存占多少内存"},
    "kv_bytes.model.default": {
        "en": "The embedded default model (`blockviz/models/default/config.json`, read with Qwen3Config):",
        "zh": "内置的默认模型（`blockviz/models/default/config.json`，用 Qwen3Config 读取）："},
    "kv_bytes.model.qwen3-0.6b": {
        "en": "A model shaped like `Qwen3-0.6B` (the attention shape of its config.json):",
        "zh": "一个形状同 `Qwen3-0.6B` 的模型（取自它 config.json 的注意力形状）："},
    "kv_bytes.dtype": {"en": "The KV pool holds `{dtype}` numbers.", "zh": "KV 池里的数是 `{dtype}`。"},
    "kv_bytes.dtype_block": {
        "en": "The KV pool holds `{dtype}` numbers. Block size B = {B} tokens.",
        "zh": "KV 池里的数是 `{dtype}`。块大小 B = {B} 个 token。"},
    "kv_bytes.ask.block_bytes": {
        "en": "How many bytes does one block of the KV pool take?",
        "zh": "KV 池的一个块占多少字节？"},
    "kv_bytes.ask.token_bytes": {
        "en": "How many bytes of the KV pool does one token take?",
        "zh": "一个 token 在 KV 池里占多少字节？"},
    "kv_bytes.ask.block_mib": {
        "en": "How many MiB does one block of the KV pool take?",
        "zh": "KV 池的一个块占多少 MiB？"},
    "kv_bytes.ask.blocks_fit": {
        "en": "The pool is sized with `blockviz demo --kv-memory {memory}` ({words}). How many blocks does it hold?",
        "zh": "KV 池按 `blockviz demo --kv-memory {memory}`（{words}）分配。池里有多少块？"},
    "kv_bytes.task": {"en": "{question} Answer with one whole number.", "zh": "{question}请写一个整数。"},
    "kv_bytes.hint": {
        "en": "The pool stores a key and a value vector for every layer, every token of a block and every KV head, "
              "head_dim numbers each. float32 takes 4 bytes a number, bfloat16 and float16 take 2; "
              "1 MiB = 2^20 bytes, 1 GiB = 2^30 bytes.",
        "zh": "KV 池为每一层、块里的每个 token、每个 KV 头各存一个 K 向量和一个 V 向量，每个向量 head_dim 个数。"
              "float32 每个数 4 字节，bfloat16 和 float16 每个数 2 字节；1 MiB = 2^20 字节，1 GiB = 2^30 字节。"},
    "kv_bytes.mis.no_kv_factor": {
        "en": "You counted only one of K and V. Every token stores both a key and a value vector: the factor 2.",
        "zh": "你只算了 K 和 V 中的一个。每个 token 都要存一个 K 向量和一个 V 向量：要乘 2。"},
    "kv_bytes.mis.no_layers": {
        "en": "You counted one layer. Every layer keeps its own K and V for every token: multiply by "
              "num_hidden_layers.",
        "zh": "你只算了一层。每一层都为每个 token 存自己的 K 和 V：要乘以 num_hidden_layers。"},
    "kv_bytes.mis.query_heads": {
        "en": "You used the query heads. Only K and V are cached, one vector per KV head (grouped-query attention): "
              "use num_key_value_heads.",
        "zh": "你用了查询头数。缓存的只有 K 和 V，每个 KV 头一个向量（分组查询注意力）：应使用 num_key_value_heads。"},
    "kv_bytes.mis.hidden_size": {
        "en": "You used hidden_size as the width of K. One layer's K for one token is num_key_value_heads × head_dim "
              "numbers, which need not equal hidden_size.",
        "zh": "你把 hidden_size 当成了 K 的宽度。一层里一个 token 的 K 是 num_key_value_heads × head_dim 个数，"
              "不一定等于 hidden_size。"},
    "kv_bytes.mis.itemsize": {
        "en": "Check the bytes per number of the dtype: float32 takes 4 bytes, bfloat16 and float16 take 2.",
        "zh": "检查这个 dtype 每个数的字节数：float32 是 4 字节，bfloat16 和 float16 是 2 字节。"},
    "kv_bytes.mis.bits": {
        "en": "You counted bits; the question is in bytes (8 bits each).",
        "zh": "你算的是比特；题目问的是字节（1 字节 = 8 比特）。"},
    "kv_bytes.mis.no_block_size": {
        "en": "You left out the block size: a block holds B tokens, each with its own K and V.",
        "zh": "你漏掉了块大小：一个块装 B 个 token，每个 token 都有自己的 K 和 V。"},
    "kv_bytes.mis.bytes_not_mib": {
        "en": "That is the size in bytes; the question asks MiB (2^20 bytes).",
        "zh": "这是字节数；题目问的是 MiB（2^20 字节）。"},
    "kv_bytes.mis.kib_not_mib": {
        "en": "That is KiB; one MiB is 1024 KiB.",
        "zh": "这是 KiB；1 MiB 等于 1024 KiB。"},
    "kv_bytes.mis.decimal_units": {
        "en": "MiB and GiB are binary units: 1 MiB = 2^20 bytes, 1 GiB = 2^30 bytes (the demo reads 2G as 2 × 2^30 "
              "bytes), not powers of 10.",
        "zh": "MiB 和 GiB 是二进制单位：1 MiB = 2^20 字节，1 GiB = 2^30 字节（演示把 2G 读作 2 × 2^30 字节），"
              "不是 10 的幂。"},
    "kv_bytes.mis.rounded_up": {
        "en": "Part of a block is no block: the pool holds the whole number of blocks that fit, rounded down.",
        "zh": "装不下一整块就不算一块：池里的块数是能放下的整块数，向下取整。"},
    "kv_bytes.solution.product": {
        "en": "2 (K and V) × layers × B × KV heads × head_dim × bytes per number (`{dtype}`): `{product}` bytes. "
              "The {heads} query heads do not appear: only K and V are cached, one vector per KV head.",
        "zh": "2（K 和 V）× 层数 × B × KV 头数 × head_dim × 每个数的字节数（`{dtype}`）：`{product}` 字节。"
              "{heads} 个查询头不出现在式子里：缓存的只有 K 和 V，每个 KV 头一个向量。"},
    "kv_bytes.solution.bytes": {"en": "Answer: **{answer}** bytes.", "zh": "答案：**{answer}** 字节。"},
    "kv_bytes.solution.mib": {
        "en": "{bytes} bytes ÷ 2^20 = **{answer}** MiB.",
        "zh": "{bytes} 字节 ÷ 2^20 = **{answer}** MiB。"},
    "kv_bytes.solution.fit": {
        "en": "`--kv-memory {memory}` = {budget} bytes; ⌊{budget} ÷ {bytes}⌋ = **{answer}** blocks.",
        "zh": "`--kv-memory {memory}` = {budget} 字节；⌊{budget} ÷ {bytes}⌋ = **{answer}** 块。"},
}
