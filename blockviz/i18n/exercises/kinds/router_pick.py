"""Strings of blockviz/exercises/kinds/router_pick.py: router_pick."""

STRINGS: dict[str, dict[str, str]] = {
    "router_pick.title": {"en": "Where a KV-aware router sends a prompt", "zh": "按 KV 缓存路由的路由器把提示发往哪里"},
    "router_pick.cache": {
        "en": "{count} vLLM instances (block size B = {B}) behind a KV-aware router; each one's prefix cache as its "
              "KV events describe it:",
        "zh": "{count} 个 vLLM 实例（块大小 B = {B}）在一个按 KV 缓存路由的路由器后面；每个实例的前缀缓存按它的 KV 事件列出："},
    "router_pick.prompt": {
        "en": "A prompt of {n} tokens arrives, cut into blocks:",
        "zh": "一个 {n} 个 token 的提示到达，按块切开："},
    "router_pick.task": {
        "en": "The router sends it to the instance that will take the most prompt tokens from its cache; on a tie "
              "(no requests are in flight) the first instance in order. Which instance (1..{count})?",
        "zh": "路由器把它发给能从缓存里取用最多提示 token 的实例；如果并列（此时没有正在处理的请求），取排在前面的实例。"
              "发往哪个实例（1..{count}）？"},
    "router_pick.hint": {
        "en": "For each instance, count the tokens vLLM would reuse: leading full blocks found under their "
              "parent's hash, stopping at the first miss, at most num_tokens − 1 tokens. Then take the largest.",
        "zh": "对每个实例，数一数 vLLM 会复用多少 token：从头开始、挂在父块 hash 之下的完整块，遇到第一个未命中就停，"
              "最多 num_tokens − 1 个 token。然后取最大的那个。"},
    "router_pick.not_instance": {
        "en": "Answer with an instance number, 1..{count}.",
        "zh": "请回答实例编号，1..{count}。"},
    "router_pick.mis.cap": {
        "en": "An instance that holds the whole prompt still reuses only num_tokens − 1 tokens, in whole blocks "
              "of {B}: count with that cap on every instance.",
        "zh": "即使某个实例缓存了整个提示，也只能复用 num_tokens − 1 个 token，并按 {B} 的整块计：对每个实例都要带着这个上限来数。"},
    "router_pick.mis.partial": {
        "en": "A block that is only partly the same counts nothing: the router scores whole blocks found by hash.",
        "zh": "只有一部分相同的块不算数：路由器按 hash 找到的整块来打分。"},
    "router_pick.mis.past_miss": {
        "en": "Blocks after the first miss (or under another parent) cannot hit, even if their text is cached "
              "there: each block's hash covers its whole prefix.",
        "zh": "第一个未命中之后（或挂在别的父块下）的块不可能命中，哪怕它们的文本在那里缓存着：每块的 hash 涵盖它的整个前缀。"},
    "router_pick.mis.biggest": {
        "en": "The router does not pick the instance with the most cached blocks, but the one whose cache holds "
              "the longest prefix of this prompt.",
        "zh": "路由器挑的不是缓存块最多的实例，而是缓存里存着这个提示最长前缀的实例。"},
    "router_pick.mis.count": {
        "en": "Count, for each instance, the prompt tokens its cache already holds, then compare.",
        "zh": "先对每个实例数出它的缓存已经存着多少提示 token，再比较。"},
    "router_pick.line": {"en": "instance {name}: {n} tokens cached", "zh": "实例 {name}：缓存了 {n} 个 token"},
    "router_pick.solution": {"en": "The longest cached prefix is on instance **{answer}**.",
                             "zh": "最长的缓存前缀在实例 **{answer}** 上。"},
    "router_pick.solution_tie": {
        "en": "The instances tie; with no requests in flight the router takes the first: instance **{answer}**.",
        "zh": "几个实例并列；没有正在处理的请求时，路由器取排在前面的：实例 **{answer}**。"},
}
