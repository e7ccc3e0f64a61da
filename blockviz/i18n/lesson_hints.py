"""Each lesson question's own hint: what to look at, never the answer (Lesson.exercise(hint="02.x") shows
"hint.02.x"). A hint depends on the question, not on the run, so it is fixed text here; the explanation,
which cites the run's numbers, is written beside the question in its lesson."""

STRINGS: dict[str, dict[str, str]] = {
    "hint.00.prefill_blocks": {
        "en": "Divide the prompt's tokens by the block size, and ask where the tokens left over go.",
        "zh": "用提示的 token 数除以块大小，再想想除不尽时剩下的 token 放在哪里。"},
    "hint.00.free_after_prefill": {
        "en": "Start from the pool's size and take out every block the request's block table now holds.",
        "zh": "从池的总块数出发，减去这个请求的块表现在持有的每一个块。"},
    "hint.00.contiguous_requests": {
        "en": "Divide the pool by the size of one reservation, not by what a request uses.",
        "zh": "用池的大小除以一份预留的大小，而不是除以一个请求实际用到的槽位数。"},
    "hint.01.slot_mapping": {
        "en": "For each position t: its logical block is t // B; look that entry up in block_table, then add the "
              "offset t % B.",
        "zh": "对每个位置 t：逻辑块是 t // B；在 block_table 里查出这一项，再加上偏移 t % B。"},
    "hint.01.decode_slot": {
        "en": "A decode step writes one slot, found exactly as in a prefill: the position's logical block, its "
              "entry in the table, then the offset.",
        "zh": "解码步只写一个槽位，查法和预填充一样：位置所在的逻辑块、它在块表中的那一项，再加上偏移。"},
    "hint.01.slot_to_position": {
        "en": "Undo the formula: slot // B is a physical block; find where it sits in C's table, and slot % B is "
              "the offset.",
        "zh": "把公式倒过来：slot // B 是物理块，找出它在 C 的块表里排第几项；slot % B 是偏移。"},
    "hint.02.can_allocate_c": {
        "en": "Walk C's blocks but the last: is each one's hash in the map, whatever queue its block is in?",
        "zh": "逐个看 C 除最后一块以外的块：它的 hash 在不在映射里？不管那个块在哪个队列。"},
    "hint.02.ref_counts": {
        "en": "Count, for each of A's blocks, the block tables that hold it: A's own, and each later request whose "
              "prefix reaches that whole block.",
        "zh": "对 A 的每个块，数一数有几张块表持有它：A 自己的，以及每个前缀覆盖了这整块的后来请求。"},
    "hint.02.stale_free": {
        "en": "Go through the free queue block by block: does hash_to_block_id still lead from the block's hash to "
              "that block, or to another one?",
        "zh": "逐个看空闲队列里的块：hash_to_block_id 里它的 hash 是否仍指向它自己，还是指向了别的块？"},
    "hint.02.evict_order": {
        "en": "Find which end of the free queue `_allocate_block` takes from, then read that many blocks from that "
              "end.",
        "zh": "看 `_allocate_block` 从空闲队列的哪一端取块，再从那一端依次读出这么多块。"},
    "hint.03.can_allocate_b": {
        "en": "Compare B with A one block at a time from the first, up to the first block that differs, and "
              "remember which block can_allocate never looks up.",
        "zh": "从第一块起逐块比较 B 和 A，直到第一个不同的块为止；并记住 can_allocate 从不查找哪一块。"},
    "hint.03.same_prompt_again": {
        "en": "Which of B's blocks can can_allocate look up, and how many tokens sit in the one it cannot?",
        "zh": "B 的哪些块 can_allocate 能查到？它不查的那一块里有多少个 token？"},
    "hint.04.appends_at_all": {
        "en": "Does any decode step compute a token that is the first of a block? Compare the lengths decode sees "
              "with the block boundaries.",
        "zh": "有没有哪个解码步计算的 token 是某块的第一个 token？把解码遇到的长度和块的边界比一比。"},
    "hint.04.append_lengths": {
        "en": "Start at the first decode step's len(seq) and stop before the last sampled token; mark each length "
              "at which the token being computed is the first of a block.",
        "zh": "从第一个解码步的 len(seq) 数起，到最后采样的 token 之前为止；标出正在计算的 token 是某块第一个 token 的那些长度。"},
    "hint.04.hashed_in_decode": {
        "en": "A block is hashed in the step that computes its last slot: which of the request's blocks do decode "
              "steps complete, and which token is never computed?",
        "zh": "块在计算到它最后一个槽位的那一步登记 hash：请求的哪些块是由解码步填满的？哪个 token 从不计算？"},
    "hint.04.can_append": {
        "en": "Where does the token being appended land: in a block the request already has, or in the first slot "
              "of a new one? Look at `len(seq) % B`.",
        "zh": "被追加的 token 落在哪里：请求已有的块里，还是新块的第一个槽位？看 `len(seq) % B`。"},
    "hint.05.empty_slots": {
        "en": "Count the slots of the block table (blocks × B), t"
              "hen take away the tokens whose K/V the prefill wro"
              "te.",
        "zh": "先数块表里的槽位（块数 × B），再减去预填充写了 K/V 的 token 数。"},
    "hint.05.any_preempted": {
        "en": "Follow the free blocks step by step: does a decode step ever need a new block when none is free?",
        "zh": "逐步跟踪空闲块：有没有哪个解码步需要新块时，一块空闲的都没有？"},
    "hint.05.c_first_scheduled": {
        "en": "The waiting queue is served in arrival order: find the first step in which, after A and B, the pool "
              "and the token budget still have room for C.",
        "zh": "等待队列按到达顺序服务：找到第一个在 A 和 B 之后，池和 token 预算仍容得下 C 的那一步。"},
    "hint.05.admitted_with_budget": {
        "en": "Admission needs every block of the prompt at once: compare the blocks the prompt fills with the free "
              "blocks. What does the token budget change?",
        "zh": "入场要一次拿到提示的全部块：把提示占的块数和空闲块数比一比。token 预算改变的是什么？"},
    "hint.05.victim": {
        "en": "Which end of the running queue does the scheduler take its victim from (`running.pop()`)?",
        "zh": "调度器从运行队列的哪一端挑被抢占者（`running.pop()`）？"},
    "hint.05.recompute_after_preempt": {
        "en": "Step through the player: which of the victim's full blocks are still in the pool, with their hash, "
              "when it is admitted again? Its last block is computed anyway.",
        "zh": "在播放器里逐步看：被抢占者再次入场时，它的哪些完整块还带着 hash 留在池里？它的最后一块无论如何都要计算。"},
    "hint.06.token_count": {
        "en": "BPE pieces are often whole short words with their leading space, while long or rare words split into "
              "several: count pieces, not words or letters.",
        "zh": "BPE 的片段常常是带前导空格的整个短词，长词或少见的词会被切成几段：数片段，不是数单词或字母。"},
    "hint.06.new_block_positions": {
        "en": "A decode step computes one position t; it needs a new block when t is the first slot of a block.",
        "zh": "一个解码步计算一个位置 t；t 恰好是一块的第一个槽位时才需要新块。"},
    "hint.06.b_hits": {
        "en": "Find the first token where B differs from A in the table above; only whole blocks before the block "
              "that holds it can hit, free or not.",
        "zh": "在上面的表里找到 B 与 A 第一个不同的 token；只有它所在块之前的整块才能命中，不管它们是否空闲。"},
    "hint.06.block_bytes": {
        "en": "Write the product factor by factor: K and V, layers, tokens per block, KV heads, head_dim, and the "
              "bytes of one number in this dtype.",
        "zh": "逐个因子写出乘积：K 和 V、层数、每块 token 数、KV 头数、head_dim，以及这个 dtype 一个数的字节数。"},
    "hint.06.block_mib": {
        "en": "Start from the config's layers, KV heads and head_dim; check that you counted both K and V, and that "
              "a MiB is `2**20` bytes.",
        "zh": "从配置里的层数、KV 头数和 head_dim 出发；检查是否把 K 和 V 都算上了，以及 MiB 是 `2**20` 字节。"},
    "hint.06.c_same_prompt": {
        "en": "Which of C's blocks can can_allocate look up, and are A's freed blocks still in hash_to_block_id?",
        "zh": "C 的哪些块 can_allocate 能查到？A 释放的块还在 hash_to_block_id 里吗？"},
    "hint.07.gather_slots": {
        "en": "Position t reads block_table[t // B], offset t % B; an entry `-1` counts as block `0`.",
        "zh": "位置 t 读 block_table[t // B] 的偏移 t % B；表项 `-1` 当作块 `0`。"},
    "hint.07.cu_seqlens_k": {
        "en": "Count each request's keys (its cached positions plus its new ones) in batch order, then take running "
              "sums from `0`.",
        "zh": "按批次顺序数出每个请求的 key 数（已缓存的位置加上新的位置），再从 `0` 开始做累加和。"},
    "hint.07.first_query_keys": {
        "en": "Put the first new query at its real position in th"
              "e request, after the Lk − Lq earlier positions, an"
              "d count the keys at or before it.",
        "zh": "把第一个新查询放到它在请求中的真实位置（前面有 Lk − Lq 个位置），再数它和它之前的 key。"},
    "hint.07.decode_hidden": {
        "en": "Read how many keys paged_decode_attention gathers (`max_len`), then subtract C's context length.",
        "zh": "先看 paged_decode_attention 取回多少个 key（`max_len`），再减去 C 的上下文长度。"},
    "hint.08.v2_can_allocate": {
        "en": "Turn the watermark into blocks first (`int(waterma"
              "rk × total)`), then look at what would be left fre"
              "e after the allocation.",
        "zh": "先把水位线换算成块数（`int(watermark × total)`），再看分配之后还剩多少空闲块。"},
    "hint.08.v2_lookahead": {
        "en": "Count the empty slots the table has now, then the slots this step needs: the new token plus the "
              "lookahead.",
        "zh": "先数块表现在有多少空槽位，再数这一步需要的槽位：新 token 加上前瞻槽位。"},
    "hint.08.n144": {
        "en": "Which block of the prompt does nano-vllm never look up, and how many of the prompt's tokens are in it?",
        "zh": "nano-vllm 从不查找提示的哪一块？那一块里有提示的多少个 token？"},
    "hint.08.unreachable": {
        "en": "Walk D's blocks from the first, as can_allocate does: is each one's hash still in the map when D "
              "arrives? Which allocation took the block the map pointed at?",
        "zh": "像 can_allocate 那样从第一块开始走 D 的块：D 到达时，每一块的 hash 还在映射里吗？哪一次分配取走了映射指向的那个块？"},
    "hint.09.victim": {
        "en": "Read `running` from its tail: which request does the scheduler give up first so that the head can "
              "append?",
        "zh": "从队尾读 `running`：为了让队首能追加，调度器先放弃哪个请求？"},
    "hint.09.shared_blocks": {
        "en": "Mark where the system prompt ends, in blocks: which blocks hold nothing but system-prompt tokens?",
        "zh": "以块为单位标出系统提示在哪里结束：哪些块里只有系统提示的 token？"},
    "hint.09.longest_blocks": {
        "en": "Count the tokens that are ever computed (prompt and generated, but not the last sampled one) and the "
              "blocks they fill.",
        "zh": "数一数真正被计算过的 token（提示加上生成的，但不算最后采样的那一个），以及它们占几块。"},
    "hint.09.gpu_blocks": {
        "en": "Bytes per block = `2` × layers × KV heads × head_d"
              "im × block size × `2` bytes (`bfloat16`); and how "
              "many bytes does `--kv-memory` read `2G` as?",
        "zh": "每块字节数 = `2` × 层数 × KV 头数 × head_dim × 块大小 × `2` 字节（`bfloat16`）；`--kv-memory` 把 `2G` 当成多少字节？"},
    "hint.10.cached_again": {
        "en": "vLLM caps a hit below the whole prompt (`num_token"
              "s − 1`) and counts whole blocks only: apply both t"
              "o this prompt's length.",
        "zh": "vLLM 的命中上限低于整段提示（`num_tokens − 1`），而且只按整块计：把这两条都用到这段提示的长度上。"},
    "hint.10.after_burst": {
        "en": "Which block of A's chain does least-recently-used eviction take first, and what does a missing block "
              "do to the blocks after it?",
        "zh": "按最久未用逐出时，A 的链先丢哪一块？缺了一块，它后面的块会怎样？"},
    "hint.10.kv_pick": {
        "en": "Compare the counts: the router takes the instance with the longest predicted cached prefix, and "
              "that instance reuses its own count.",
        "zh": "比较这几个数：路由器选预测缓存前缀最长的实例，那个实例复用的就是它自己的那个数。"},
    "hint.11.preempted_bigger": {
        "en": "Find the step where both requests need a new block for their next token, and count the free blocks "
              "there.",
        "zh": "找到两个请求的下一个 token 都需要新块的那一步，数一数那时的空闲块。"},
    "hint.11.steps_bigger": {
        "en": "Follow the run step by step until the last request finishes; without a preemption no request waits "
              "and prefills a second time.",
        "zh": "逐步跟着运行，直到最后一个请求结束；没有抢占时，没有请求需要等待并再预填充一次。"},
    "hint.11.returning_can_allocate": {
        "en": "Which of the victim's blocks are still cached-free when it comes back, and which of its blocks does "
              "can_allocate never look up?",
        "zh": "被抢占者回来时，它的哪些块仍是可复用缓存？can_allocate 从不查找它的哪一块？"},
    "hint.11.ref_after_preempt": {
        "en": "Count the block tables that hold the block before the preemption, then take away the victim's.",
        "zh": "数一数抢占前有几张块表持有这一块，再去掉被抢占者的那一张。"},
    "hint.b0.blocks_for_prompt": {
        "en": "Divide the prompt's tokens by the block size: when nothing is left over, does the request need a "
              "block for the tokens it has not generated yet?",
        "zh": "用提示的 token 数除以块大小：正好除尽时，请求还需要为尚未生成的 token 先要一块吗？"},
    "hint.b0.next_blocks": {
        "en": "Write the free queue after A leaves: which end do A's blocks join, in which order, and which end "
              "does `_allocate_block` take from?",
        "zh": "写出 A 离开后的空闲队列：A 的块加在哪一端、按什么顺序，`_allocate_block` 又从哪一端取？"},
    "hint.b1.can_allocate": {
        "en": "Compare the new prompt with A's block by block from the first and stop at the first block that "
              "differs: hits form a prefix, and the last block is never looked up.",
        "zh": "从第一块起逐块比较新提示和 A 的提示，遇到第一个不同的块就停下：命中必须构成前缀，最后一块从不查找。"},
    "hint.b2.free_after_deallocate": {
        "en": "deallocate walks the block table in some order, and each block whose ref_count drops to `0` joins "
              "the free queue: in which order, and at which end?",
        "zh": "deallocate 按某种顺序遍历块表，ref_count 降到 `0` 的块加入空闲队列：按什么顺序？加在哪一端？"},
    "hint.b3.hashed_first_step": {
        "en": "How many tokens does the first chunk compute, and how many whole blocks do they fill?",
        "zh": "第一段分块计算多少个 token？它们填满几个整块？"},
    "hint.b4.may_append_count": {
        "en": "List the decode steps' len(seq) and count those at which the token being computed is the first of a "
              "block (`len(seq) % B == 1`).",
        "zh": "列出各解码步的 len(seq)，数出正在计算的 token 是某块第一个 token（`len(seq) % B == 1`）的那些。"},
    "hint.03.all_cached_rerun": {
        "en": "Every block of B's prompt is cached: ask which block the lookup never probes, and how many tokens "
              "that block holds.",
        "zh": "B 的提示的每一块都已缓存：想想查找从不探查的是哪一块，那一块装着几个 token。"},
    "hint.05.decode_stalls": {
        "en": "Count the prefill steps the long prompt needs under the token budget, then ask whether a nano-vllm "
              "prefill step decodes anyone.",
        "zh": "数一数在 token 预算下这个长提示需要几个预填充步，再想想 nano-vllm 的预填充步会不会为谁解码。"},
    "hint.05.first_victim": {
        "en": "Find the first decode step that needs a block while the free queue is empty; the scheduler takes "
              "its victim from one end of the running queue.",
        "zh": "找出第一个在空闲队列为空时还需要新块的解码步；调度器从运行队列的一端挑出被抢占的请求。"},
    "hint.13.infinite_cached": {
        "en": "Walk the request's hash ids from the first: count blocks while each id appeared in an earlier "
              "request, stop at the first new one, and cap the tokens at the prompt's length.",
        "zh": "从第一个开始看这个请求的 hash id：只要 id 在更早的请求里出现过就计入，遇到第一个新 id 就停，"
              "token 数以提示长度为上限。"},
}
