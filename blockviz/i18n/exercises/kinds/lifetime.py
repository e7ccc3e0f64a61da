"""Strings of blockviz/exercises/kinds/lifetime.py: lifetime."""

STRINGS: dict[str, dict[str, str]] = {
    "lifetime.title": {"en": "Slots written and blocks held over a request's life",
                       "zh": "一个请求从到达到结束写入的槽位与持有的块"},
    "lifetime.block_size": {
        "en": "Block size B = {B}; the pool is large enough that nothing is evicted or preempted.",
        "zh": "块大小 B = {B}；池足够大，不会逐出也不会抢占。"},
    "lifetime.earlier": {
        "en": "Earlier, request E ran with prompt {prompt} ({n} tokens) and finished; its blocks are in the free "
              "queue with their content.",
        "zh": "之前请求 E 以 prompt {prompt}（{n} 个 token）运行并已完成；它的块带着内容留在空闲队列里。"},
    "lifetime.request": {
        "en": "Request A arrives, with nothing else running: prompt {prompt} ({n} tokens), max_tokens {max_tokens}. "
              "It runs until it has generated exactly max_tokens tokens (no EOS).",
        "zh": "请求 A 到达，此时没有别的请求在运行：prompt {prompt}（{n} 个 token），max_tokens {max_tokens}。"
              "它一直运行到恰好生成 max_tokens 个 token（没有 EOS）。"},
    "lifetime.ask.slots": {
        "en": "Over A's whole life, how many KV slots does the model write for A (one per token it computes)?",
        "zh": "从 A 到达到结束，模型为 A 写入多少个 KV 槽位（每计算一个 token 写一个）？"},
    "lifetime.ask.blocks": {
        "en": "At its longest, how many blocks does A's block_table hold?",
        "zh": "A 的 block_table 最长时有多少块？"},
    "lifetime.task": {"en": "{question} Answer with one whole number.", "zh": "{question}请写一个整数。"},
    "lifetime.hint": {
        "en": "Count the tokens the model computes for A: the prompt positions not found in the cache, then one per "
              "decode step. The last sampled token is appended but never computed. A block holds B of them; a "
              "partly filled block is still a block.",
        "zh": "数一数模型为 A 计算的 token：缓存里找不到的提示位置，再加每个解码步一个。最后采样的 token 只追加、"
              "从不计算。一块装 B 个；没装满的块也是一块。"},
    "lifetime.mis.last_token_computed": {
        "en": "The last sampled token is never computed: the request finishes as soon as it is sampled, so no step "
              "writes its K/V.",
        "zh": "最后采样的 token 从不计算：它一被采样请求就结束了，没有哪一步会写它的 K/V。"},
    "lifetime.mis.hits_rewritten": {
        "en": "Positions found in the cache are not computed again: A revives E's blocks with their K/V.",
        "zh": "在缓存里找到的位置不会重新计算：A 复活了 E 的块，连同其中的 K/V。"},
    "lifetime.mis.prompt_only": {
        "en": "Decode writes too: every decode step computes one token (the one sampled in the step before) and "
              "writes its slot, so the table grows.",
        "zh": "解码也会写入：每个解码步计算一个 token（上一步采样的那个）并写它的槽位，块表也随之增长。"},
    "lifetime.mis.rounded_down": {
        "en": "A partly filled block is still a whole block in the block_table: round up.",
        "zh": "没装满的块在 block_table 里也占一整块：向上取整。"},
    "lifetime.mis.slots_not_blocks": {
        "en": "That counts tokens (slots); the question asks blocks of B slots.",
        "zh": "这数的是 token（槽位）；题目问的是块，每块 B 个槽位。"},
    "lifetime.solution.slots": {
        "en": "A computes its {P} − {cached} prompt position(s) not found in the cache, then {G} − 1 decode position(s) "
              "(the last sampled token is never computed): **{answer}** slots.",
        "zh": "A 计算缓存里没有的 {P} − {cached} 个提示位置，再加 {G} − 1 个解码位置（最后采样的 token 从不计算）："
              "**{answer}** 个槽位。"},
    "lifetime.solution.blocks": {
        "en": "At its longest A holds the K/V of {P} + {G} − 1 = {n} tokens (the last sampled token is never "
              "computed); ⌈{n} / {B}⌉ = **{answer}** blocks.",
        "zh": "A 最长时持有 {P} + {G} − 1 = {n} 个 token 的 K/V（最后采样的 token 从不计算）；"
              "⌈{n} / {B}⌉ = **{answer}** 块。"},
}
