"""Strings of blockviz/exercises/kinds/vllm_cached.py: vllm_cached."""

STRINGS: dict[str, dict[str, str]] = {
    "vllm_cached.title": {"en": "Predict a real vLLM's cached tokens", "zh": "预测真实 vLLM 复用的 token 数"},
    "vllm_cached.cache": {
        "en": "vLLM's prefix cache, block size B = {B}, as its BlockStored events describe each block (the last "
              "hex digits of its hash, of its parent's, and its tokens):",
        "zh": "vLLM 的前缀缓存，块大小 B = {B}，按 BlockStored 事件对每一块的描述列出（它的 hash 末几位、父块 hash 末几位、它的 token）："},
    "vllm_cached.prompt": {
        "en": "A new prompt of {n} tokens arrives, cut into blocks:",
        "zh": "一个 {n} 个 token 的新提示到达，按块切开："},
    "vllm_cached.task": {
        "en": "How many of its prompt tokens does vLLM take from its prefix cache (the `cached_tokens` it reports)?",
        "zh": "vLLM 会从前缀缓存里取用它的多少个提示 token（也就是它报告的 `cached_tokens`）？"},
    "vllm_cached.hint": {
        "en": "Walk the prompt's full blocks from the first: a block hits only if the cache holds exactly its tokens "
              "under the hash of the block before it (the first block: no parent). Stop at the first miss, and "
              "never take more than num_tokens − 1 tokens: whole blocks only.",
        "zh": "从第一块开始走提示的完整块：只有缓存里在前一块的 hash 之下恰好存着这一块的 token，这一块才命中（第一块：没有父块）。"
              "遇到第一个未命中就停；取用的 token 最多 num_tokens − 1 个，而且只按整块算。"},
    "vllm_cached.mis.cap": {
        "en": "vLLM never takes the whole prompt from its cache: it caps the hit at num_tokens − 1 so the last "
              "token is computed for its logits, and the cap is rounded down to whole blocks of {B}.",
        "zh": "vLLM 不会从缓存里取走整个提示：它把命中限制在 num_tokens − 1 个 token 以内，好让最后一个 token "
              "被计算出 logits；这个上限再向下取整到 {B} 的整块。"},
    "vllm_cached.mis.partial": {
        "en": "You counted the shared tokens of a block that is only partly the same. A block is cached and found "
              "whole, by its hash: a block whose tokens differ anywhere is a miss.",
        "zh": "你把只有一部分相同的那一块里共享的 token 也算进去了。块按 hash 整块缓存、整块查找：token 有任何不同，这一块就是未命中。"},
    "vllm_cached.mis.past_miss": {
        "en": "You counted blocks whose text is cached but under another parent, or after the first miss. A "
              "block's hash covers every token before it: after a miss, no later block can hit.",
        "zh": "你把文本在缓存里、但挂在别的父块下，或者在第一个未命中之后的块也算进去了。块的 hash 涵盖它前面的全部 token："
              "一旦未命中，后面的块都不可能命中。"},
    "vllm_cached.mis.blocks": {
        "en": "That is a number of blocks; the question asks for tokens (blocks × {B}).",
        "zh": "这是块数；题目问的是 token 数（块数 × {B}）。"},
    "vllm_cached.mis.not_whole": {
        "en": "vLLM reuses whole blocks only: the answer is a multiple of B = {B}.",
        "zh": "vLLM 只复用整块：答案是 B = {B} 的倍数。"},
    "vllm_cached.solution": {
        "en": "The prompt has {n} tokens, so at most `(n − 1) // B` = {most} full blocks can hit (B = {B}). Walking "
              "them from the first, {blocks} are found, each under its parent's hash: **{answer}** tokens.",
        "zh": "提示有 {n} 个 token，所以最多 `(n − 1) // B` = {most} 个完整块可以命中（B = {B}）。从第一块往下走，"
              "找到 {blocks} 块，每块都挂在父块的 hash 之下：**{answer}** 个 token。"},
}
