"""Strings of blockviz/exercises/kinds/recompute.py: recompute."""

STRINGS: dict[str, dict[str, str]] = {
    "recompute.title": {"en": "What a hash chain and a radix tree each recompute",
                        "zh": "哈希链和基数树各要重算多少"},
    "recompute.setup": {
        "en": "The same requests go through two designs, one at a time, each running to its end before the next "
              "arrives: nano-vllm's BlockManager with blocks of B = {B} tokens, and SGLang's radix tree with pages "
              "of {P} token(s). Both pools hold {tokens} tokens ({blocks} blocks), enough that nothing is ever "
              "evicted. Each request generates {M} token(s) by repeating its prompt from its start.",
        "zh": "同样的请求依次通过两种设计，每个请求运行到结束，下一个才到达：nano-vllm 的 BlockManager，块大小 B = {B} 个 token；"
              "SGLang 的基数树，每页 {P} 个 token。两个池子都能放 {tokens} 个 token（{blocks} 块），足够大，什么都不会被逐出。"
              "每个请求从提示开头重复提示，生成 {M} 个 token。"},
    "recompute.request": {"en": "request", "zh": "请求"},
    "recompute.prompt": {"en": "prompt (in blocks of B)", "zh": "提示（按 B 分块）"},
    "recompute.generated": {"en": "generated", "zh": "生成的 token"},
    "recompute.new": {
        "en": "Then request {label} arrives, a prompt of {n} tokens: {prompt}",
        "zh": "然后请求 {label} 到达，提示共 {n} 个 token：{prompt}"},
    "recompute.task": {
        "en": "How many of {label}'s prompt tokens does each design recompute? Answer two numbers: nano-vllm's, "
              "then SGLang's.",
        "zh": "两种设计各要重算 {label} 的多少个提示 token？回答两个数：先 nano-vllm 的，再 SGLang 的。"},
    "recompute.hint": {
        "en": "First write down what each earlier request left cached: its prompt and every generated token but "
              "the last (the last one is sampled, never computed), in whole blocks for nano-vllm and whole pages for "
              "SGLang. Then match the new prompt against them, stop one token before its end, round down to a "
              "block or a page, and subtract from the prompt's length.",
        "zh": "先写出每个更早的请求留在缓存里的东西：它的提示，加上除最后一个以外的所有生成 token（最后一个只是采样出来的，"
              "从没算过），nano-vllm 按整块、SGLang 按整页。然后用新提示去匹配它们，在提示末尾前一个 token 停下，"
              "向下取整到块或页，再用提示长度减去它。"},
    "recompute.mis.no_cap": {
        "en": "Neither design reuses a whole prompt: one token at least must be computed to sample from. nano-vllm "
              "never looks up the prompt's last block; SGLang matches at most the prompt's length − 1 tokens.",
        "zh": "两种设计都不会复用整个提示：至少要算一个 token 才能采样。nano-vllm 从不查找提示的最后一块；"
              "SGLang 最多匹配提示长度 − 1 个 token。"},
    "recompute.mis.partial_block": {
        "en": "A block (or a page) is reused whole or not at all: the shared tokens of a partly matching block of "
              "{B} are recomputed. Only with pages of one token does every shared token count.",
        "zh": "一块（或一页）要么整块复用，要么完全不复用：部分匹配的 {B} 个 token 的那一块里，共享的 token 也要重算。"
              "只有每页一个 token 时，每个共享的 token 才都算数。"},
    "recompute.mis.prompts_only": {
        "en": "Generated tokens are cached too: nano-vllm hashes a decode block once it is full, and SGLang inserts "
              "a finished request's prompt and output into the tree.",
        "zh": "生成的 token 也会被缓存：nano-vllm 在解码块写满时为它登记 hash，SGLang 在请求结束时把提示和输出一起插入树里。"},
    "recompute.mis.last_token": {
        "en": "A request's last generated token has no KV: it was sampled, and the request finished before any step "
              "computed it. It is never cached.",
        "zh": "请求最后生成的那个 token 没有 KV：它只是被采样出来，请求在任何一步算它之前就结束了。它永远不会进入缓存。"},
    "recompute.mis.hits": {
        "en": "Those are the tokens each design takes from its cache; the question asks what is left to recompute: "
              "the prompt's length minus them.",
        "zh": "这是每种设计从缓存里取用的 token 数；题目问的是剩下要重算的：提示长度减去它。"},
    "recompute.mis.swapped": {
        "en": "The numbers are in the wrong order: nano-vllm's first, then SGLang's.",
        "zh": "两个数的顺序反了：先 nano-vllm 的，再 SGLang 的。"},
    "recompute.mis.same_unit": {
        "en": "SGLang's pages here hold {P} token(s), not B = {B}: round its match down to a page, not to a block.",
        "zh": "这里 SGLang 每页 {P} 个 token，不是 B = {B}：把它的匹配向下取整到页，而不是到块。"},
    "recompute.mis.sglang_only": {
        "en": "nano-vllm's number is right; look again at SGLang's: its match in pages of {P}, at most the prompt's "
              "length − 1 tokens.",
        "zh": "nano-vllm 的数对了；再看看 SGLang 的：按 {P} 个 token 一页匹配，最多提示长度 − 1 个 token。"},
    "recompute.mis.nano_only": {
        "en": "SGLang's number is right; look again at nano-vllm's: whole blocks of {B}, never the prompt's last "
              "block.",
        "zh": "SGLang 的数对了；再看看 nano-vllm 的：按 {B} 个 token 的整块，从不包括提示的最后一块。"},
    "recompute.solution.cached": {
        "en": "Each earlier request left its prompt and its generated tokens but the last cached, in whole blocks "
              "(nano-vllm) or pages (SGLang).",
        "zh": "每个更早的请求把它的提示和除最后一个以外的生成 token 留在缓存里，nano-vllm 按整块、SGLang 按整页。"},
    "recompute.solution.line": {
        "en": "{design}: the prompt but its last token matches {matched} cached tokens; in whole units of {unit} "
              "that is {hit}; {n} − {hit} = **{redo}** recomputed.",
        "zh": "{design}：除去最后一个 token 的提示与缓存匹配 {matched} 个 token；按 {unit} 个 token 的整单位取整是 {hit}；"
              "{n} − {hit} = **{redo}** 个要重算。"},
    "recompute.solution.answer": {"en": "Answer: **{answer}**.", "zh": "答案：**{answer}**。"},
}
