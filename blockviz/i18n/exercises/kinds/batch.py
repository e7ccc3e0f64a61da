"""Strings of blockviz/exercises/kinds/batch.py: prefill_batch, decode_mask."""

STRINGS: dict[str, dict[str, str]] = {
    "prefill_batch.title": {"en": "The prefill batch: cu_seqlens and slot_mapping",
                            "zh": "预填充批次：cu_seqlens 与 slot_mapping"},
    "decode_mask.title": {"en": "Keys the decode mask hides", "zh": "解码掩码挡住的 key"},
    "prefill_batch.batch": {
        "en": "The next step is a prefill. The scheduler hands the model runner these requests, in this order "
              "(block tables after allocate; num_cached_tokens: positions whose K/V are already in the pool):",
        "zh": "下一步是预填充。调度器按这个顺序把这些请求交给模型执行器（块表是 allocate 之后的；"
              "num_cached_tokens：K/V 已在池中的位置数）："},
    "prefill_batch.task": {
        "en": "Write the `{name}` that ModelRunner.prepare_prefill builds for this step, in order, as numbers "
              "separated by commas.",
        "zh": "写出 ModelRunner.prepare_prefill 为这一步构造的 `{name}`，按顺序，用逗号分隔。"},
    "prefill_batch.hint": {
        "en": "prepare_prefill walks the requests in batch order; each computes positions num_cached_tokens … end − 1, "
              "where end is len(seq) unless max_num_batched_tokens cuts the step short. {detail}",
        "zh": "prepare_prefill 按批次顺序遍历请求；每个请求计算位置 num_cached_tokens … end − 1，"
              "其中 end 是 len(seq)，除非 max_num_batched_tokens 让这一步提前截断。{detail}"},
    "prefill_batch.hint.cu_seqlens_q": {
        "en": "cu_seqlens_q: running totals of the tokens each request computes in this step, starting at 0.",
        "zh": "cu_seqlens_q：各请求本步计算的 token 数的累加和，从 0 开始。"},
    "prefill_batch.hint.cu_seqlens_k": {
        "en": "cu_seqlens_k: running totals of the keys each request attends to (its cached positions and the new "
              "ones, up to end), starting at 0.",
        "zh": "cu_seqlens_k：各请求要关注的 key 数（缓存的位置加新位置，直到 end）的累加和，从 0 开始。"},
    "prefill_batch.hint.slot_mapping": {
        "en": "slot_mapping: one slot per computed position t, block_table[t // B] × B + t % B, request after request.",
        "zh": "slot_mapping：每个计算的位置 t 一个槽位，block_table[t // B] × B + t % B，一个请求接一个请求。"},
    "prefill_batch.mis.no_leading_zero": {
        "en": "cu_seqlens starts with 0: request i owns entries cu_seqlens[i] … cu_seqlens[i + 1] − 1, so there is "
              "one more number than requests.",
        "zh": "cu_seqlens 以 0 开头：第 i 个请求占 cu_seqlens[i] … cu_seqlens[i + 1] − 1，所以数的个数比请求数多一个。"},
    "prefill_batch.mis.cached_in_q": {
        "en": "You counted the cached positions as queries. Only the tokens computed in this step are rows of the "
              "batch; cached positions are keys (cu_seqlens_k), not queries.",
        "zh": "你把缓存的位置也算成了查询。只有本步计算的 token 才是批次里的行；缓存的位置是 key（cu_seqlens_k），"
              "不是查询。"},
    "prefill_batch.mis.not_cumulative": {
        "en": "You wrote each request's own count. cu_seqlens holds running totals (prefix sums), starting at 0.",
        "zh": "你写的是每个请求各自的数。cu_seqlens 是累加和（前缀和），从 0 开始。"},
    "prefill_batch.mis.budget_ignored": {
        "en": "Check the token budget: max_num_batched_tokens caps the tokens of one step, so a long prompt is "
              "computed in chunks.",
        "zh": "检查 token 预算：max_num_batched_tokens 限制一步的 token 数，长提示要分块计算。"},
    "prefill_batch.mis.q_for_k": {
        "en": "A request's keys include its cached positions: attention reads them from the pool through the block "
              "table. cu_seqlens_k counts cached + new.",
        "zh": "一个请求的 key 包括它缓存的位置：注意力通过块表从池里读它们。cu_seqlens_k 数的是缓存的 + 新的。"},
    "prefill_batch.mis.whole_prompt": {
        "en": "The keys stop at the last position this step computes; the positions of a later chunk have no K/V yet.",
        "zh": "key 只到本步计算的最后一个位置为止；后续分块的位置还没有 K/V。"},
    "prefill_batch.mis.cached_rewritten": {
        "en": "Cached positions already have their K/V in the pool; slot_mapping lists only the positions this step "
              "computes.",
        "zh": "缓存的位置的 K/V 已经在池里；slot_mapping 只列出本步计算的位置。"},
    "prefill_batch.mis.positions_not_slots": {
        "en": "Those are the positions (what RoPE uses). The slot of position t goes through the block table: "
              "block_table[t // B] × B + t % B.",
        "zh": "这些是位置（RoPE 用的）。位置 t 的槽位要经过块表：block_table[t // B] × B + t % B。"},
    "prefill_batch.mis.rows_not_slots": {
        "en": "Those are the rows of the packed batch. A slot is where the K/V goes in the pool, through the "
              "request's block table.",
        "zh": "这些是打包批次的行号。槽位是 K/V 在池中的位置，要经过请求的块表。"},
    "prefill_batch.partial.rows": {
        "en": "{count} of {total} slots are right. Look again at batch row(s) {positions} (counted from 0).",
        "zh": "{total} 个槽位里对了 {count} 个。请再看批次的第 {positions} 行（从 0 数）。"},
    "prefill_batch.partial.entries": {
        "en": "{count} of {total} entries are right. Look again at entry(ies) {positions} (counted from 0).",
        "zh": "{total} 项里对了 {count} 项。请再看第 {positions} 项（从 0 数）。"},
    "prefill_batch.solution_header": {
        "en": "| request | num_cached_tokens | positions computed | new tokens (q) | keys (k) | slots |",
        "zh": "| 请求 | num_cached_tokens | 计算的位置 | 新 token 数（q）| key 数（k）| 槽位 |"},
    "prefill_batch.solution": {
        "en": "cu_seqlens_q = [{q}], cu_seqlens_k = [{k}]. Answer: **{answer}**.",
        "zh": "cu_seqlens_q = [{q}]，cu_seqlens_k = [{k}]。答案：**{answer}**。"},
    "decode_mask.batch": {
        "en": "The next step decodes every running request. When attention runs, the batch holds (block tables after "
              "may_append; len(seq) includes the token computed now):",
        "zh": "下一步对所有运行中的请求解码。注意力运行时，批次里是（块表是 may_append 之后的；len(seq) 包含本步计算的 token）："},
    "decode_mask.task": {
        "en": "paged_decode_attention gathers the same number of keys for every request (one rectangle for the "
              "batch, read through gather_kv). How many of {label}'s gathered keys does the mask hide? Answer with "
              "one whole number.",
        "zh": "paged_decode_attention 为每个请求取回同样多的 key（整个批次一个矩形，经 gather_kv 读取）。"
              "{label} 取回的 key 里有多少被掩码挡住？请写一个整数。"},
    "decode_mask.hint": {
        "en": "paged_decode_attention gathers max_len = max(context_lens) keys for every request: as many as the "
              "longest context in the batch, not whole blocks (past a request's table, the -1 padding reads block 0). "
              "The mask keeps the first context_lens = len(seq) of them.",
        "zh": "paged_decode_attention 为每个请求取回 max_len = max(context_lens) 个 key：和批次里最长的上下文一样多，"
              "不是整块（超出请求的块表之后，填充值 -1 读的是块 0）。掩码只保留其中前 context_lens = len(seq) 个。"},
    "decode_mask.mis.own_blocks": {
        "en": "That is only the rest of the request's own last block. The gather is one rectangle for the whole batch, "
              "as long as its longest context, so the row goes on past the request's own blocks.",
        "zh": "这只是该请求自己最后一块的剩余部分。取回的是整个批次的一个矩形，长度等于最长的上下文，"
              "所以这一行会越过请求自己的块继续读下去。"},
    "decode_mask.mis.current_not_key": {
        "en": "The token computed now is a key too: its K/V is stored before attention reads, and context_lens = "
              "len(seq) includes it.",
        "zh": "本步计算的 token 也是 key：它的 K/V 在注意力读取之前就已写入，context_lens = len(seq) 包含它。"},
    "decode_mask.mis.visible_keys": {
        "en": "That is the number of keys the mask keeps; the question asks how many it hides.",
        "zh": "这是掩码保留的 key 数；题目问的是被挡住的个数。"},
    "decode_mask.mis.whole_blocks": {
        "en": "That counts whole blocks of the padded tables (max_blocks × B). paged_decode_attention gathers keys "
              "only up to the longest context in the batch, max(context_lens).",
        "zh": "这是按填充后块表的整块（max_blocks × B）算的。paged_decode_attention 只取到批次里最长的上下文为止，"
              "即 max(context_lens)。"},
    "decode_mask.mis.gathered_keys": {
        "en": "That is every gathered key; the mask keeps the request's own context_lens of them.",
        "zh": "这是取回的全部 key；掩码会保留其中属于该请求的 context_lens 个。"},
    "decode_mask.solution": {
        "en": "paged_decode_attention gathers max_len = max(context_lens) = {gathered} keys for every request, the "
              "longest context in the batch; {label}'s row reads them through its block table {row} (padded to "
              "{width} blocks). context_lens = {context} of them are its own. Hidden: {gathered} − {context} = "
              "**{answer}**.",
        "zh": "paged_decode_attention 为每个请求取回 max_len = max(context_lens) = {gathered} 个 key，即批次里最长的"
              "上下文；{label} 那一行通过它的块表 {row}（填充到 {width} 块）读取，其中 context_lens = {context} 个是"
              "它自己的。被挡住的：{gathered} − {context} = **{answer}**。"},
}
