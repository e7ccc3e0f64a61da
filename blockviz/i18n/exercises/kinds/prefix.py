"""Strings of blockviz/exercises/kinds/prefix.py:
hit_pattern, can_allocate, block_table, admission_cost, and the prefix walk they share."""

STRINGS: dict[str, dict[str, str]] = {
    "hit_pattern.title": {"en": "Hit/miss pattern of a hash chain", "zh": "hash 链的命中模式"},
    "can_allocate.title": {"en": "What can_allocate returns", "zh": "can_allocate 的返回值"},
    "block_table.title": {"en": "block_table after an admission", "zh": "入场后的 block_table"},
    "admission_cost.title": {"en": "Free blocks an admission consumes", "zh": "一次入场消耗的空闲块数"},
    "ex.prefix.new_request": {
        "en": "A new request R arrives: prompt {prompt} ({n} tokens, {blocks} logical blocks). It is the only "
              "request waiting, so the next step tries to admit it.",
        "zh": "新请求 R 到达：prompt {prompt}（{n} 个 token，{blocks} 个逻辑块）。它是唯一在等待的请求，"
              "下一步会尝试让它入场。"},
    "hit_pattern.task": {
        "en": "For each logical block of R, in order, write what can_allocate finds: U (hit on a used block), "
              "F (hit on a block in the free queue), M (miss: looked up, not found) or - (never looked up).",
        "zh": "按顺序为 R 的每个逻辑块写出 can_allocate 的结果：U（命中正在使用的块）、F（命中空闲队列里的块）、"
              "M（未命中：查了但没找到）或 -（根本不查）。"},
    "can_allocate.task": {
        "en": "What does block_manager.can_allocate(R) return? (The number of cached prefix blocks, or -1.)",
        "zh": "block_manager.can_allocate(R) 返回什么？（命中的前缀块数，或 -1。）"},
    "block_table.task": {
        "en": "The step admits R. Write R's block_table after allocate, as block ids separated by commas.",
        "zh": "这一步让 R 入场。写出 allocate 之后 R 的 block_table，用逗号分隔块号。"},
    "admission_cost.task": {
        "en": "The step admits R. How many blocks does the admission take out of the free queue?",
        "zh": "这一步让 R 入场。这次入场从空闲队列里取走多少个块？"},
    "hit_pattern.hint": {
        "en": "Walk R's blocks in order and compare each prefix with the map's prefixes. Stop at the first miss; "
              "the last block is never looked up. For each hit, check whether its block is in the free queue.",
        "zh": "按顺序走 R 的块，把每段前缀与映射表里的前缀对比。遇到第一个未命中就停；最后一块从不查。"
              "每个命中再看它的块是否在空闲队列里。"},
    "can_allocate.hint": {
        "en": "First find the hits (a prefix, stopping at the first miss, never the last block). Then count the "
              "free blocks needed: every logical block except hits on used blocks. Compare with the free queue.",
        "zh": "先找出命中（连续前缀，遇到第一个未命中就停，最后一块不算）。再数需要的空闲块：除命中“使用中”块之外的"
              "每个逻辑块都要一个。与空闲队列长度比较。"},
    "block_table.hint": {
        "en": "Hits keep the block the map points to. A hit on a free block takes that block out of the free queue "
              "first; then each remaining logical block pops the head of what is left.",
        "zh": "命中的逻辑块直接用映射指向的块。命中空闲块会先把它从空闲队列中移除；其余逻辑块依次从剩下的队头取块。"},
    "admission_cost.hint": {
        "en": "A hit on a used block only adds a reference. A hit on a free block still leaves the free queue. "
              "Every other block is a fresh allocation.",
        "zh": "命中使用中的块只是加一个引用；命中空闲块仍要从空闲队列里拿出来；其余每块都是新分配。"},
    "ex.prefix.walk.used": {
        "en": "hit: {hash} → block {block}, in use → shared (ref_count + 1, no free block)",
        "zh": "命中：{hash} → 块 {block}，正在使用 → 共享（ref_count + 1，不占空闲块）"},
    "ex.prefix.walk.free": {
        "en": "hit: {hash} → block {block}, in the free queue → revived (leaves the free queue)",
        "zh": "命中：{hash} → 块 {block}，在空闲队列中 → 复活（离开空闲队列）"},
    "ex.prefix.walk.miss": {"en": "miss: this prefix is not in the map; the walk stops",
                         "zh": "未命中：映射中没有这段前缀；停止查找"},
    "ex.prefix.walk.last": {"en": "last block: never looked up", "zh": "最后一块：从不查找"},
    "ex.prefix.walk.skip": {"en": "after the first miss: not looked up", "zh": "在第一个未命中之后：不再查找"},
    "ex.prefix.mis.last_block": {
        "en": "You counted the request's last block as a hit. can_allocate walks range(num_blocks - 1): the last "
              "block is never looked up, even when it is full, because its last token must be computed again.",
        "zh": "你把请求的最后一块算成了命中。can_allocate 只遍历 range(num_blocks - 1)：最后一块即使填满也不查，"
              "因为要重新计算它的最后一个 token。"},
    "ex.prefix.mis.hit_after_miss": {
        "en": "Hits must form a prefix: can_allocate stops at the first miss and looks nothing up after it.",
        "zh": "命中必须是连续前缀：can_allocate 在第一个未命中处停止，之后什么都不查。"},
    "ex.prefix.mis.free_is_miss": {
        "en": "You treated a hit on a free block as a miss. A block in the free queue "
              "keeps its tokens and its place in hash_to_block_id until it is reused, so can_allocate still finds "
              "it: that is a hit (F), and the walk goes on.",
        "zh": "你把命中空闲块当成了未命中。空闲队列里的块在被重新使用之前，token 和它在 "
              "hash_to_block_id 里的条目都还在，所以 can_allocate 仍能找到它：这是命中（F），遍历继续。"},
    "ex.prefix.mis.free_hit_costs_nothing": {
        "en": "You treated a hit on a free block as costing nothing. Only a hit on a used block is free of "
              "charge; a revived block still leaves the free queue, so it still counts.",
        "zh": "你把命中空闲块当成了不占空闲块。只有命中使用中的块才不消耗空闲块；被复活的块仍要离开空闲队列，"
              "所以仍然要算。"},
    "hit_pattern.mis.used_free": {
        "en": "Hit or miss is right, but used vs free is not for logical block(s) {blocks}: check whether the "
              "block the map points to is in the free queue.",
        "zh": "命中与否都对了，但逻辑块 {blocks} 的“使用中/空闲”判断不对：看映射指向的块是否在空闲队列中。"},
    "hit_pattern.mis.miss_skip": {
        "en": "Check M against - for logical block(s) {blocks}: the first miss is looked up (M); blocks after it "
              "and the last block are never looked up (-).",
        "zh": "请检查逻辑块 {blocks} 的 M 和 -：第一个未命中是查过的（M）；它之后的块和最后一块都不查（-）。"},
    "hit_pattern.partial": {
        "en": "{count} of {total} right. Look again at logical block(s) {blocks}.",
        "zh": "{total} 项里对了 {count} 项。请再看逻辑块 {blocks}。"},
    "hit_pattern.solution": {"en": "Pattern: **{answer}**.", "zh": "模式：**{answer}**。"},
    "can_allocate.mis.not_enough": {
        "en": "Count the free blocks R needs (every logical block except hits on used blocks) and compare with "
              "the free queue: can_allocate returns -1 when there are too few.",
        "zh": "数一数 R 需要的空闲块（除命中使用中块以外的每个逻辑块），与空闲队列比较：不够时 can_allocate 返回 -1。"},
    "can_allocate.mis.enough": {
        "en": "There are enough free blocks: count again which logical blocks need one (hits on used blocks do not).",
        "zh": "空闲块是够的：再数一次哪些逻辑块需要空闲块（命中使用中块的不需要）。"},
    "can_allocate.mis.returns_need": {
        "en": "can_allocate returns the number of cached prefix blocks (or -1), not the number of blocks to allocate.",
        "zh": "can_allocate 返回的是命中的前缀块数（或 -1），不是要分配的块数。"},
    "can_allocate.solution": {
        "en": "{hits} prefix block(s) hit, {used} of them on used blocks. R has {blocks} logical blocks, so it needs "
              "{blocks} - {used} = {need} free block(s); the free queue holds {free}. can_allocate returns **{answer}**.",
        "zh": "命中 {hits} 个前缀块，其中 {used} 个命中使用中块。R 有 {blocks} 个逻辑块，需要 {blocks} - {used} = {need} "
              "个空闲块；空闲队列有 {free} 个。can_allocate 返回 **{answer}**。"},
    "block_table.mis.ignored_hits": {
        "en": "You allocated every block fresh. The prefix hits keep the blocks the map points to.",
        "zh": "你把每块都当成新分配。命中的前缀块应直接使用映射指向的块。"},
    "block_table.mis.from_tail": {
        "en": "New blocks come from the head of the free queue (popleft), not the tail.",
        "zh": "新块从空闲队列的队头取（popleft），不是队尾。"},
    "block_table.mis.revived": {
        "en": "A revived block leaves the free queue before the new blocks are popped, so a new allocation never "
              "takes it again.",
        "zh": "被复活的块在分配新块之前就已离开空闲队列，新分配不会再取到它。"},
    "block_table.mis.duplicate": {
        "en": "A block id appears twice: one request never holds the same block twice.",
        "zh": "同一个块号出现了两次：一个请求不会两次持有同一个块。"},
    "block_table.partial": {
        "en": "{count} of {total} entries are right. Look again at logical block(s) {blocks}.",
        "zh": "{total} 项里对了 {count} 项。请再看逻辑块 {blocks}。"},
    "block_table.solution": {
        "en": "Free queue after the revived blocks leave it: {queue}. block_table = **{answer}**.",
        "zh": "复活块离开后的空闲队列：{queue}。block_table = **{answer}**。"},
    "admission_cost.mis.used_hit_costs": {
        "en": "A hit on a used block is shared: it only gets one more reference and takes nothing from the free queue.",
        "zh": "命中使用中的块是共享：只是多一个引用，不从空闲队列拿块。"},
    "admission_cost.solution": {
        "en": "{used} hit(s) on used blocks cost nothing, {revived} revived block(s) cost one each, {new} new "
              "allocation(s) cost one each: **{answer}**.",
        "zh": "{used} 个命中使用中块不消耗，{revived} 个复活块各消耗一个，{new} 个新分配各消耗一个：**{answer}**。"},
}
