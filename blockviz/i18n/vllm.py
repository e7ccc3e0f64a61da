"""Interface strings of the vLLM watch views (views/render_forest.py, views/vllm_widget.py)."""

STRINGS: dict[str, dict[str, str]] = {
    "forest.title": {"en": "vLLM prefix cache · step {step} · cached blocks: {n} · stored now: {stored} · "
                           "removed now: {removed}",
                     "zh": "vLLM前缀缓存 · 第{step}步 · 已缓存块：{n} · 本步存入：{stored} · 本步移除：{removed}"},
    "forest.cannot": {"en": "from KV events: hashes, parents and tokens; not physical block ids, ref counts or "
                            "the free queue",
                      "zh": "来自KV事件：hash、父块与token；看不到物理块号、引用计数和空闲队列"},
    "forest.cleared": {"en": "AllBlocksCleared: the whole cache was emptied at this step",
                       "zh": "AllBlocksCleared：本步清空了整个缓存"},
    "forest.source": {"en": "{source} · cached blocks: {n}", "zh": "{source} · 已缓存块：{n}"},
    "forest.empty": {"en": "nothing cached", "zh": "缓存为空"},
    "forest.left_out": {"en": "older blocks not drawn: {n}", "zh": "未画出的较早块：{n}"},
    "forest.cell.cached": {"en": "block {hash}: {n} tokens “{tokens}”, stored at step {step}, copies {copies}, "
                                 "medium {medium}",
                           "zh": "块{hash}：{n}个token“{tokens}”，第{step}步存入，副本{copies}，介质{medium}"},
    "forest.cell.stored": {"en": "block {hash}: {n} tokens “{tokens}”, stored at this step ({step}), copies "
                                 "{copies}, medium {medium}",
                           "zh": "块{hash}：{n}个token“{tokens}”，本步（第{step}步）存入，副本{copies}，介质{medium}"},
    "forest.cell.removed": {"en": "block {hash}: {n} tokens “{tokens}”, stored at step {step}, removed at this "
                                  "step (copies {copies}, medium {medium})",
                            "zh": "块{hash}：{n}个token“{tokens}”，第{step}步存入，本步被移除（副本{copies}，"
                                  "介质{medium}）"},
    "forest.cell.meta": {"en": "step {step} · {n} tok", "zh": "第{step}步 · {n}个token"},
    "evictions.title": {"en": "removed, oldest first (latest {n})", "zh": "被移除的块，从早到晚（最近{n}个）"},
    "evictions.none": {"en": "nothing removed yet", "zh": "还没有块被移除"},
    "evictions.item": {"en": "step {step} · {hash} · “{tokens}” · cached for {lived} steps",
                       "zh": "第{step}步 · {hash} · “{tokens}” · 缓存了{lived}步"},
    "counters.resident": {"en": "cached blocks: {n}", "zh": "已缓存块：{n}"},
    "counters.stored": {"en": "stored so far: {n}", "zh": "累计存入：{n}"},
    "counters.removed": {"en": "removed so far: {n}", "zh": "累计移除：{n}"},
    "counters.hit_rate": {"en": "prefix hit rate (server /metrics): {rate}", "zh": "前缀命中率（服务器/metrics）：{rate}"},
    "counters.no_hit_rate": {"en": "hit rate: no server metrics", "zh": "命中率：没有服务器指标"},
    "counters.problems": {"en": "malformed or foreign messages: {n}", "zh": "格式错误或无关的消息：{n}"},
    "counters.lost": {"en": "batches lost before this one: {n}", "zh": "此前丢失的批次：{n}"},
    "vllm.player.first": {"en": "first kept step", "zh": "最早保留的一步"},
    "vllm.player.back": {"en": "one step back", "zh": "后退一步"},
    "vllm.player.forward": {"en": "one step forward", "zh": "前进一步"},
    "vllm.player.live": {"en": "follow live", "zh": "跟随实时"},
    "vllm.player.step": {"en": "step", "zh": "步"},
    "vllm.player.window": {"en": "steps {first}–{last} kept", "zh": "保留第{first}–{last}步"},
    "vllm.player.waiting": {"en": "waiting for KV events…", "zh": "等待KV事件……"},
    "vllm.problem.last": {"en": "last problem: {reason}", "zh": "最近的问题：{reason}"},
    "lab.title": {"en": "Policy lab · {n} requests · block size {size} · vLLM {blocks} blocks (one is its null block) · "
                        "nano-vllm {nano} blocks",
                  "zh": "策略实验 · {n}个请求 · 块大小{size} · vLLM {blocks}块（其中一块是空块）· nano-vllm {nano}块"},
    "lab.hit_rate": {"en": "hit rate so far (cached prompt tokens / prompt tokens)",
                     "zh": "累计命中率（缓存命中的提示词token / 提示词token）"},
    "lab.hit_rate.final": {"en": "hit rate: vLLM {vllm}, nano-vllm {nano}", "zh": "命中率：vLLM {vllm}，nano-vllm {nano}"},
    "lab.col.request": {"en": "request", "zh": "请求"},
    "lab.col.prompt": {"en": "prompt tokens", "zh": "提示词token"},
    "lab.col.vllm_cached": {"en": "vLLM cached", "zh": "vLLM命中"},
    "lab.col.nano_cached": {"en": "nano-vllm cached", "zh": "nano-vllm命中"},
    "lab.col.vllm_steps": {"en": "vLLM: stored / evicted", "zh": "vLLM：存入 / 逐出"},
    "lab.col.nano_steps": {"en": "nano-vllm: stored / evicted", "zh": "nano-vllm：存入 / 逐出"},
    "lab.col.why": {"en": "why they differ", "zh": "差异的原因"},
    "lab.burst": {"en": "sent at once with {others}", "zh": "与{others}同时发送"},
    "lab.admitted": {"en": "vLLM took it in at its step {step}; nano-vllm gets the burst in vLLM's order, all at once",
                     "zh": "vLLM在其第{step}步接纳它；nano-vllm按vLLM的顺序一次拿到整个突发"},
    "lab.none": {"en": "none", "zh": "无"},
    "lab.more": {"en": "… {n} more", "zh": "……另{n}个"},
    "lab.steps": {"en": "steps {first}–{last}", "zh": "第{first}–{last}步"},
    "lab.diff.cached_tokens": {"en": "cached tokens: vLLM {vllm}, nano-vllm {nano}",
                               "zh": "命中token：vLLM {vllm}，nano-vllm {nano}"},
    "lab.diff.resident": {"en": "held afterwards: only vLLM {only_vllm}; only nano-vllm {only_nano}",
                          "zh": "之后缓存：仅vLLM有：{only_vllm}；仅nano-vllm有：{only_nano}"},
    "lab.diff.because": {"en": "{what}. Rule: {why}", "zh": "{what}。规则：{why}"},
    "lab.diff.block": {"en": "block {block}: nano-vllm evicted it at its step {step} (request {request})",
                       "zh": "块{block}：nano-vllm在其第{step}步（请求{request}）逐出了它"},
    "lab.diff.block_vllm": {"en": "block {block}: vLLM evicted it at its step {step} (request {request})",
                            "zh": "块{block}：vLLM在其第{step}步（请求{request}）逐出了它"},
    "lab.unexplained": {"en": "UNEXPLAINED: no rule of the lab makes nano-vllm do what vLLM did",
                        "zh": "无法解释：实验中没有哪条规则能让nano-vllm做出vLLM的行为"},
    "lab.residual": {"en": "with every rule put in, nano-vllm still differs: {left}",
                     "zh": "把所有规则都放进去之后，nano-vllm仍有不同：{left}"},
    "lab.unexplained.count": {"en": "{n} differences no rule explains", "en.one": "1 difference no rule explains",
                              "zh": "{n}处差异无法用规则解释"},
    "lab.rules": {"en": "The rules, as the code decides them", "zh": "规则，以及代码里的出处"},
    "lab.rule.free_unhashed_first": {"en": "free queue: vLLM reuses freed blocks without a hash first (the head of "
                                           "its free queue) and keeps hashed ones for last; nano-vllm appends every "
                                           "freed block to the tail",
                                     "zh": "空闲队列：vLLM把没有hash的已释放块放在空闲队列队首、最先复用，有hash的放在队尾；"
                                           "nano-vllm把每个释放的块都追加到队尾"},
    "lab.short.free_unhashed_first": {"en": "the free queue's order", "zh": "空闲队列的顺序"},
    "lab.short.register_when_scheduled": {"en": "when a block is registered", "zh": "块的登记时机"},
    "lab.short.running_cap": {"en": "the cap on running requests", "zh": "运行中请求数的上限"},
    "lab.rule.running_cap": {"en": "running cap: vLLM admits a waiting request only while fewer than max_num_seqs "
                                   "run, so the rest of a burst waits; nano-vllm's max_num_seqs caps one step's "
                                   "batch, so it admits every waiting request that fits",
                             "zh": "运行上限：vLLM只在运行中的请求少于max_num_seqs时才接纳等待中的请求，突发里其余的请求只能等；"
                                   "nano-vllm的max_num_seqs限制的是一步的批次，放得下的等待请求都会被接纳"},
    "lab.short.token_check": {"en": "the token check", "zh": "token校验"},
    "lab.short.last_token": {"en": "the last-token limit", "zh": "最后一个token的上限"},
    "lab.or": {"en": "{rules} (or as well: {other})", "zh": "{rules}（同样能解释的：{other}）"},
    "lab.paren": {"en": "({text})", "zh": "（{text}）"},
    "lab.step": {"en": "step {step}", "zh": "第{step}步"},
    "lab.rule.register_when_scheduled": {"en": "registering: vLLM registers a block's hash when it schedules the "
                                               "tokens that fill it, so a request scheduled later in the same step "
                                               "hits it; nano-vllm registers after the step, so requests prefilled "
                                               "together all miss",
                                         "zh": "登记时机：vLLM在调度填满某块的token时就登记该块的hash，同一步里稍后调度的请求"
                                               "就能命中它；nano-vllm在这一步算完之后才登记，所以一起预填充的请求都不命中"},
    "lab.rule.token_check": {"en": "token check: nano-vllm takes a hash hit only if the block holds the same tokens; "
                                   "vLLM trusts the hash",
                             "zh": "token校验：nano-vllm只有在块中token相同时才接受hash命中；vLLM信任hash"},
    "lab.rule.last_token": {"en": "last token: nano-vllm never probes the last block, vLLM caps a hit at "
                                  "num_tokens − 1; both allow the same number of blocks",
                            "zh": "最后一个token：nano-vllm从不探测最后一块，vLLM把命中上限设为num_tokens − 1；"
                                  "两者允许的块数相同"},
    "lab.rule.checked": {"en": "checked on {n} requests: the limits differ on {differ}",
                         "zh": "在{n}个请求上检查：上限不同的有{differ}个"},
    "lab.rule.explains": {"en": "explains {n} differences", "en.one": "explains 1 difference",
                          "zh": "解释了{n}处差异"},
    "lab.legend.vllm": {"en": "vLLM", "zh": "vLLM"},
    "lab.legend.nano": {"en": "nano-vllm", "zh": "nano-vllm"},
}
