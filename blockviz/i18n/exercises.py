"""Strings of blockviz.exercises: key -> {"en": ..., "zh": ...}. Placeholders use str.format.

Failure messages name the learner's mistake, never the right answer.
"""

STRINGS: dict[str, dict[str, str]] = {
    # --- reading answers --------------------------------------------------------------------
    "ex.answer.empty": {
        "en": "The answer is empty. Type your answer, or 'hint' for a hint.",
        "zh": "答案是空的。请输入答案，或输入“提示”获取提示。"},
    "ex.answer.type": {
        "en": "An answer must be text, a number or a list, not {type}.",
        "zh": "答案应是文字、数字或列表，而不是 {type}。"},
    "ex.answer.too_long": {
        "en": "The answer is longer than {limit} characters; write only what the question asks for.",
        "zh": "答案超过 {limit} 个字符；只写题目要求的内容即可。"},
    "ex.answer.not_number": {
        "en": "“{token}” is not a whole number. Write numbers separated by commas, e.g. 1, 2, 3.",
        "zh": "“{token}”不是整数。请用逗号分隔整数，例如 1, 2, 3。"},
    "ex.answer.count": {
        "en": "Expected {expected} number(s), got {got}.",
        "zh": "需要 {expected} 个数，你写了 {got} 个。"},
    "ex.answer.one_number": {
        "en": "Expected one number, got {got}.",
        "zh": "只需要一个数，你写了 {got} 个。"},
    "ex.answer.yes_no": {
        "en": "Answer yes or no (got “{token}”).",
        "zh": "请回答“是”或“否”（收到的是“{token}”）。"},
    "ex.answer.unknown_word": {
        "en": "“{token}” is not one of the accepted words for this exercise (see the answer format in the question).",
        "zh": "“{token}”不是本题接受的词（见题目中的答题格式）。"},
    "ex.answer.count_words": {
        "en": "Expected {expected} item(s), got {got}.",
        "zh": "需要 {expected} 项，你写了 {got} 项。"},
    "ex.answer.unknown_label": {
        "en": "“{token}” is not a request here; the requests are {known} (or write none).",
        "zh": "“{token}”不是本题中的请求；请求有 {known}（或写“无”）。"},
    "ex.answer.where": {"en": "Step {row}, {column}:", "zh": "第 {row} 步，{column}："},
    "ex.answer.rows": {
        "en": "Expected {expected} rows, one per step, got {got}.",
        "zh": "需要 {expected} 行（每步一行），你写了 {got} 行。"},
    "ex.answer.cells": {
        "en": "Row {row} has {got} cell(s); write {expected}, separated by |.",
        "zh": "第 {row} 行有 {got} 格；请写 {expected} 格，用 | 分隔。"},
    "ex.answer.row_number": {
        "en": "Row {row} is numbered {got}: write the rows in step order, one per step.",
        "zh": "第 {row} 行标的是 {got}：请按步骤顺序写，每步一行。"},
    "ex.answer.unreadable": {
        "en": "This answer could not be checked ({error}). Please rephrase it in the format the question asks for.",
        "zh": "无法核对这个答案（{error}）。请按题目要求的格式重写。"},
    "ex.check.correct": {"en": "✓ Correct.", "zh": "✓ 正确。"},
    "ex.check.wrong": {
        "en": "✗ Not quite. Check each step again, or ask for a hint.",
        "zh": "✗ 还不对。请逐步再检查一遍，或请求提示。"},
    "ex.check.try_again": {"en": "Try again.", "zh": "再试一次。"},
    "ex.check.or": {"en": "Or: {why}", "zh": "也可能是：{why}"},
    "ex.check.none_right": {
        "en": "None of the entries is right yet. Go through the first one step by step, or ask for a hint.",
        "zh": "目前没有一项是对的。先一步一步算第一项，或请求提示。"},

    # --- shared pictures --------------------------------------------------------------------
    "ex.t.block": {"en": "block", "zh": "块"},
    "ex.t.free_queue_pos": {"en": "free queue #", "zh": "空闲队列位置"},
    "ex.t.empty": {"en": "empty", "zh": "空"},
    "ex.t.none": {"en": "none", "zh": "无"},
    "ex.t.free_queue": {
        "en": "free_block_ids (head first, the next allocation pops the head): {queue}",
        "zh": "free_block_ids（队头在前，下一次分配从队头取）：{queue}"},
    "ex.t.map_empty": {"en": "hash_to_block_id is empty.", "zh": "hash_to_block_id 为空。"},
    "ex.t.map_intro": {
        "en": "hash_to_block_id (each hash names a whole prefix, shown cut into blocks):",
        "zh": "hash_to_block_id（每个 hash 代表一整段前缀，按块切开显示）："},
    "ex.t.unmapped_intro": {
        "en": "Hashes that blocks still hold but that no map entry points to:",
        "zh": "块里仍保存、但没有映射项指向它们的 hash："},
    "ex.t.prefix": {"en": "prefix", "zh": "前缀"},
    "ex.t.request": {"en": "request", "zh": "请求"},
    "ex.t.status": {"en": "status", "zh": "状态"},
    "ex.t.status.running": {"en": "running", "zh": "运行中"},
    "ex.t.status.waiting": {"en": "waiting", "zh": "等待中"},
    "ex.t.status.finished": {"en": "finished", "zh": "已完成"},
    "ex.t.tokens": {"en": "tokens (by logical block)", "zh": "token（按逻辑块）"},
    "ex.t.logical_block": {"en": "logical block", "zh": "逻辑块"},
    "ex.t.physical_block": {"en": "physical block", "zh": "物理块"},
    "ex.t.free_count": {"en": "Free blocks: {n}.", "zh": "空闲块数：{n}。"},

    # --- narration ----------------------------------------------------------------------------
    "ex.n.pool": {
        "en": "Pool: {n} blocks of B = {B} slots.",
        "zh": "块池：{n} 个块，每块 B = {B} 个槽。"},
    "ex.n.budget": {
        "en": "max_num_batched_tokens = {budget} (a step computes at most this many tokens).",
        "zh": "max_num_batched_tokens = {budget}（一步最多计算这么多 token）。"},
    "ex.n.arrives": {
        "en": "{label} arrives: prompt {prompt} ({n} tokens), max_tokens {max_tokens}.",
        "en.one": "{label} arrives: prompt {prompt} (1 token), max_tokens {max_tokens}.",
        "zh": "{label} 到达：prompt {prompt}（{n} 个 token），max_tokens {max_tokens}。"},
    "ex.n.step": {"en": "step {step}: {what}", "zh": "第 {step} 步：{what}"},
    "ex.n.and": {"en": ", ", "zh": "、"},
    "ex.n.then": {"en": "; ", "zh": "；"},
    "ex.n.computed": {"en": "{label} ({n} tokens computed)", "en.one": "{label} (1 token computed)",
                      "zh": "{label}（计算 {n} 个 token）"},
    "ex.n.prefill": {"en": "prefill of {who}", "zh": "预填充：{who}"},
    "ex.n.decode": {"en": "decode of {who}", "zh": "解码：{who}"},
    "ex.n.finished": {"en": "{label} finishes (max_tokens reached)", "zh": "{label} 完成（达到 max_tokens）"},
    "ex.n.preempted": {"en": "{label} is preempted", "zh": "{label} 被抢占"},

    # --- kinds: titles --------------------------------------------------------------------------
    "slot.title": {"en": "Slot of one token", "zh": "单个 token 的 slot"},
    "slot_mapping.title": {"en": "slot_mapping of one step", "zh": "一步的 slot_mapping"},
    "ref_counts.title": {"en": "ref_count after sharing and release", "zh": "共享与释放后的 ref_count"},
    "pool_states.title": {"en": "Six block states", "zh": "块的六种状态"},
    "next_block.title": {"en": "Which block the next allocation takes", "zh": "下一次分配取哪个块"},
    "hit_pattern.title": {"en": "Hit/miss pattern of a hash chain", "zh": "hash 链的命中模式"},
    "can_allocate.title": {"en": "What can_allocate returns", "zh": "can_allocate 的返回值"},
    "block_table.title": {"en": "block_table after an admission", "zh": "入场后的 block_table"},
    "admission_cost.title": {"en": "Free blocks an admission consumes", "zh": "一次入场消耗的空闲块数"},
    "decode_block.title": {"en": "Does a decode step need a new block?", "zh": "解码这一步要不要新块？"},
    "wasted_slots.title": {"en": "Empty slots in allocated blocks", "zh": "已分配块里的空槽"},
    "preemption.title": {"en": "Preemption victim and its blocks", "zh": "抢占对象及其块"},
    "kv_bytes.title": {"en": "What the KV cache costs", "zh": "KV 缓存占多少内存"},
    "lifetime.title": {"en": "Slots written and blocks held over a request's life",
                       "zh": "一个请求从到达到结束写入的槽位与持有的块"},
    "prefill_batch.title": {"en": "The prefill batch: cu_seqlens and slot_mapping",
                            "zh": "预填充批次：cu_seqlens 与 slot_mapping"},
    "decode_mask.title": {"en": "Keys the decode mask hides", "zh": "解码掩码挡住的 key"},

    # --- slot / slot_mapping ------------------------------------------------------------------
    "slots.intro": {
        "en": "Block size B = {B}. Request A holds {n} tokens (positions 0..{last}); its block_table is {table}.",
        "zh": "块大小 B = {B}。请求 A 有 {n} 个 token（位置 0..{last}），block_table = {table}。"},
    "slot.task": {
        "en": "In which KV slot is the K/V of the token at position t = {t} stored? Answer with one number.",
        "zh": "位置 t = {t} 的 token 的 K/V 存在哪个 KV slot？请写一个数。"},
    "slot_mapping.task": {
        "en": "This step computes positions {first}..{last} of A. Write the slot_mapping of these {count} positions, "
              "in order, as numbers separated by commas.",
        "zh": "本步计算 A 的位置 {first}..{last}。按顺序写出这 {count} 个位置的 slot_mapping，用逗号分隔。"},
    "slots.hint": {
        "en": "Split the position into logical block = ⌊t / B⌋ and offset = t mod B, look the logical block up in "
              "block_table, then slot = physical block × B + offset.",
        "zh": "先把位置拆成逻辑块 = ⌊t / B⌋ 和偏移 = t mod B，用逻辑块号查 block_table 得到物理块，"
              "再算 slot = 物理块 × B + 偏移。"},
    "slot_mapping.hint": {
        "en": "Positions in the same logical block get consecutive slots; where a new logical block starts, the "
              "slots jump to another physical block.",
        "zh": "同一逻辑块里的位置得到连续的 slot；跨进新的逻辑块时，slot 会跳到另一个物理块。"},
    "slots.mis.logical": {
        "en": "You multiplied the logical block number by B. Look the logical block up in block_table first: "
              "slot = physical block × B + offset.",
        "zh": "你用逻辑块号乘了 B。应先用逻辑块号查 block_table 得到物理块：slot = 物理块 × B + 偏移。"},
    "slots.mis.no_times_b": {
        "en": "You added the offset to the physical block number. A block holds B slots, so multiply the "
              "physical block by B first.",
        "zh": "你把偏移直接加在了物理块号上。每块有 B 个槽，要先把物理块号乘以 B。"},
    "slots.mis.position_as_offset": {
        "en": "You added the whole position t instead of the offset inside the block (t mod B).",
        "zh": "你加的是整个位置 t，而不是块内偏移（t mod B）。"},
    "slots.mis.table_index": {
        "en": "You read the wrong entry of block_table: the logical block is ⌊t / B⌋, counted from 0.",
        "zh": "你查错了 block_table 的项：逻辑块号是 ⌊t / B⌋，从 0 开始数。"},
    "slots.mis.off_by_one": {
        "en": "Off by one: the offset inside a block is t mod B, counted from 0.",
        "zh": "差了一：块内偏移是 t mod B，从 0 开始数。"},
    "slot_mapping.mis.contiguous": {
        "en": "You continued counting slots across a block boundary. Slots are consecutive only inside one "
              "physical block; where positions enter a new logical block, look up its physical block.",
        "zh": "你在块边界处继续往下数 slot。slot 只在同一物理块内连续；位置进入新的逻辑块时，要重新查它的物理块。"},
    "slot_mapping.partial": {
        "en": "{count} of {total} slots are right. Look again at position(s) {positions}.",
        "zh": "{total} 个 slot 里对了 {count} 个。请再看位置 {positions}。"},
    "slot.solution": {
        "en": "t = {t}: logical block = ⌊{t} / {B}⌋ = {lb}, offset = {t} mod {B} = {off}; block_table[{lb}] = {phys}; "
              "slot = {phys} × {B} + {off} = **{slot}**.",
        "zh": "t = {t}：逻辑块 = ⌊{t} / {B}⌋ = {lb}，偏移 = {t} mod {B} = {off}；block_table[{lb}] = {phys}；"
              "slot = {phys} × {B} + {off} = **{slot}**。"},
    "slot_mapping.solution_header": {
        "en": "| position t | logical block | offset | physical block | slot |",
        "zh": "| 位置 t | 逻辑块 | 偏移 | 物理块 | slot |"},
    "slot_mapping.solution": {
        "en": "slot_mapping = **{answer}**. It is not contiguous because consecutive logical blocks live in "
              "physical blocks that are not neighbours.",
        "zh": "slot_mapping = **{answer}**。它不连续，是因为相邻的逻辑块落在并不相邻的物理块里。"},

    # --- prefix cache -------------------------------------------------------------------------
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

    # --- ref_counts -----------------------------------------------------------------------------
    "ref_counts.then": {"en": "Then:", "zh": "接下来："},
    "ref_counts.task": {
        "en": "After these steps, what is the ref_count of block(s) {blocks}? Write the numbers in that order.",
        "zh": "这些步骤之后，块 {blocks} 的 ref_count 各是多少？按这个顺序写出。"},
    "ref_counts.hint": {
        "en": "A hit on a used block adds 1; a hit on a free block sets it to 1; a fresh allocation sets it to 1; "
              "a release subtracts 1, and only at 0 does the block join the free queue. The last block is never a hit.",
        "zh": "命中使用中块 +1；命中空闲块置为 1；新分配置为 1；释放 -1，只有减到 0 才进入空闲队列。最后一块从不命中。"},
    "ref_counts.mis.no_share": {
        "en": "A hit on a used block is shared: its ref_count goes up by one for the new request.",
        "zh": "命中使用中的块是共享：新请求让它的 ref_count 加一。"},
    "ref_counts.mis.free_is_miss": {
        "en": "A block in the free queue can still be hit: its content is kept, and a hit revives it with ref_count 1.",
        "zh": "空闲队列里的块仍可能命中：内容还在，命中后被复活，ref_count 变为 1。"},
    "ref_counts.mis.release_to_zero": {
        "en": "Releasing a request only subtracts one reference per block; a block another request still holds "
              "keeps a positive ref_count.",
        "zh": "释放请求只是每块减一个引用；仍被其他请求持有的块 ref_count 仍大于 0。"},
    "ref_counts.mis.free_plus_one": {
        "en": "A revived free block had no owner (ref_count 0): allocate sets it to 1, it is not shared with the "
              "request that finished.",
        "zh": "被复活的空闲块原本没有持有者（ref_count 0）：allocate 把它置为 1，并不与已完成的请求共享。"},
    "ref_counts.mis.partial_block": {
        "en": "You counted a partly filled last block as shared. A block gets its hash only when it is full "
              "(hash_blocks), so no later request can hit a partial block: for those tokens the new request "
              "gets a block of its own.",
        "zh": "你把只填了一部分的最后一块也算成了共享。块只有填满后才有 hash（hash_blocks），所以之后的请求不可能"
              "命中未满的块：这些 token 要由新请求自己的块来放。"},
    "ref_counts.mis.position_shared": {
        "en": "You counted blocks as shared because they sit at the same place in both block tables. Sharing goes "
              "by content: the new request hits a block only while its chained hash matches, that is, the same "
              "tokens from the very first one, and only a full block has a hash.",
        "zh": "你因为块在两张块表里位置相同，就把它们算成了共享。共享看的是内容：只有链式 hash 一致（也就是从第一个 "
              "token 起完全相同）时新请求才命中一块，而且只有填满的块才有 hash。"},
    "ref_counts.mis.negative": {"en": "A ref_count is never negative.", "zh": "ref_count 不会是负数。"},
    "ref_counts.partial": {
        "en": "{count} of {total} right. Look again at block(s) {blocks}.",
        "zh": "{total} 个里对了 {count} 个。请再看块 {blocks}。"},
    "ref_counts.why.share": {"en": "{label} shares it: +1", "zh": "{label} 共享：+1"},
    "ref_counts.why.revive": {"en": "{label} revives it: 1", "zh": "{label} 复活它：1"},
    "ref_counts.why.allocate": {"en": "{label} gets it fresh: 1", "zh": "{label} 新分配到它：1"},
    "ref_counts.why.release": {"en": "{label} releases it: -1", "zh": "{label} 释放：-1"},
    "ref_counts.solution": {"en": "ref_counts: **{answer}**.", "zh": "ref_count：**{answer}**。"},

    # --- pool states / next block -------------------------------------------------------------
    "pool_states.task": {
        "en": "Classify block(s) {blocks}, in that order, as one of {names}.",
        "zh": "按顺序把块 {blocks} 归入以下状态之一：{names}（也可写中文：空闲、可复用缓存、失效空闲、填充中、已缓存、共享）。"},
    "pool_states.hint": {
        "en": "In the free queue: hash -1 → free; the map points to it → cached-free; the map points elsewhere → "
              "stale-free. Not in the queue: ref_count ≥ 2 → shared; hash -1 → filling; otherwise cached.",
        "zh": "在空闲队列中：hash 为 -1 → 空闲；映射指向它 → 可复用缓存；映射指向别处 → 失效空闲。"
              "不在队列中：ref_count ≥ 2 → 共享；hash 为 -1 → 填充中；否则 → 已缓存。"},
    "pool_states.mis.map_points": {
        "en": "Block {block}: a free block with a hash is reusable only if hash_to_block_id still points to it.",
        "zh": "块 {block}：带 hash 的空闲块，只有 hash_to_block_id 仍指向它时才可复用。"},
    "pool_states.mis.free_keeps_hash": {
        "en": "Block {block}: freeing keeps the hash and tokens; look at its hash and at the map.",
        "zh": "块 {block}：释放不会清掉 hash 和 token；看它的 hash 和映射表。"},
    "pool_states.mis.hash_means_full": {
        "en": "Block {block}: a block gets a hash only when it is full and computed (hash_blocks).",
        "zh": "块 {block}：只有填满并计算完成的块才会登记 hash（hash_blocks）。"},
    "pool_states.mis.ref_count": {
        "en": "Block {block}: look at its ref_count — how many block tables hold it?",
        "zh": "块 {block}：看它的 ref_count——有几个 block_table 持有它？"},
    "pool_states.mis.in_queue": {
        "en": "Block {block}: check whether it is in the free queue.",
        "zh": "块 {block}：先看它在不在空闲队列里。"},
    "pool_states.partial": {
        "en": "{count} of {total} right. Look again at block(s) {blocks}.",
        "zh": "{total} 个里对了 {count} 个。请再看块 {blocks}。"},
    "pool_states.why.queue": {"en": "in the free queue", "zh": "在空闲队列中"},
    "pool_states.why.used": {"en": "in use", "zh": "使用中"},
    "pool_states.why.facts": {
        "en": "{where}, ref_count {ref}, hash {hash}, map[hash] → {map}",
        "zh": "{where}，ref_count {ref}，hash {hash}，map[hash] → {map}"},
    "pool_states.solution": {
        "en": "The state is derived, never stored: free-queue membership, hash, where the map points, ref_count.",
        "zh": "状态是推导出来的，从不存储：是否在空闲队列、hash、映射指向哪里、ref_count。"},
    "next_block.task": {
        "en": "The step admits R. Its first fresh allocation (_allocate_block) takes which block, and which hash "
              "does that call remove from hash_to_block_id? Answer as `block, hash label` (write `none` for the hash if it removes none).",
        "zh": "这一步让 R 入场。它的第一次新分配（_allocate_block）取哪个块？这次调用从 hash_to_block_id 删除哪个 "
              "hash？按 `块号, hash 标签` 的格式回答（若不删除，hash 处写“无”）。"},
    "next_block.hint": {
        "en": "Revived hits leave the free queue first; then _allocate_block pops the head. It deletes the block's "
              "hash from the map only if the map still points to this block.",
        "zh": "命中的空闲块先离开空闲队列；然后 _allocate_block 从队头取块。只有映射仍指向这个块时，才删除它的 hash。"},
    "next_block.format": {
        "en": "Write a block id and then a hash label from the tables (h1, h2, …) or none.",
        "zh": "请先写一个块号，再写表中的 hash 标签（h1、h2、…）或“无”。"},
    "next_block.mis.tail": {
        "en": "_allocate_block pops the head of the free queue (popleft); released blocks join the tail.",
        "zh": "_allocate_block 从空闲队列队头取块（popleft）；释放的块排到队尾。"},
    "next_block.mis.revived": {
        "en": "That block is a hit: allocate revives it (removes it from the free queue) before any fresh "
              "allocation, so _allocate_block does not take it.",
        "zh": "那个块是命中：allocate 在新分配之前就把它复活（移出空闲队列），所以 _allocate_block 不会取它。"},
    "next_block.mis.stale": {
        "en": "The block still holds that hash, but the map points to another block: _allocate_block deletes the "
              "entry only when it still points here, so nothing is evicted.",
        "zh": "这个块虽然还保存着那个 hash，但映射指向别的块：_allocate_block 只在映射仍指向它时才删除，所以什么都不逐出。"},
    "next_block.mis.cached_kept": {
        "en": "The map still points to this block, so reusing it evicts its content: _allocate_block deletes the "
              "entry before reset().",
        "zh": "映射仍指向这个块，所以重用它就会逐出旧内容：_allocate_block 在 reset() 之前删除该映射项。"},
    "next_block.wrong_block": {
        "en": "Not that block. Which block is at the head of the free queue once any revived hits have left it?",
        "zh": "不是这个块。复活的命中块离开之后，空闲队列的队头是哪个块？"},
    "next_block.wrong_hash": {
        "en": "The block is right; look again at its hash and where the map points.",
        "zh": "块对了；再看看它的 hash 以及映射指向哪里。"},
    "next_block.solution": {
        "en": "_allocate_block pops block {block} (hash {hash}, map[hash] → {map}). Answer: **{answer}**.",
        "zh": "_allocate_block 取出块 {block}（hash {hash}，map[hash] → {map}）。答案：**{answer}**。"},

    # --- decode -----------------------------------------------------------------------------------
    "decode_block.task": {
        "en": "The next step decodes every running request. Which of them get a new block from may_append? Write "
              "their labels, or none.",
        "zh": "下一步对所有运行中的请求做解码。哪些请求会从 may_append 得到新块？写出它们的名字，或写“无”。"},
    "decode_block.hint": {
        "en": "len(seq) counts the token sampled last step, whose K/V this step writes at position len(seq) - 1. "
              "It needs a new block exactly when that position starts a block.",
        "zh": "len(seq) 包含上一步刚采样的 token，本步把它的 K/V 写在位置 len(seq) - 1。"
              "只有这个位置恰好是某块的第一个位置时才需要新块。"},
    "decode_block.mis.mod_zero": {
        "en": "You used len(seq) % B == 0. The token computed now sits at position len(seq) - 1, which starts a new "
              "block when len(seq) % B == 1 — that is the test in can_append and may_append.",
        "zh": "你用的是 len(seq) % B == 0。本步计算的 token 在位置 len(seq) - 1，当 len(seq) % B == 1 时它才是新块的"
              "第一个位置——这正是 can_append 和 may_append 的判断。"},
    "decode_block.partial": {
        "en": "{count} of {total} requests are classified right. Check each one's len(seq) against the rule again.",
        "zh": "{total} 个请求里判断对了 {count} 个。请用规则逐个再核对 len(seq)。"},
    "decode_block.line.yes": {
        "en": "{label}: len(seq) = {n}, {n} mod {B} = {r} → new block",
        "zh": "{label}：len(seq) = {n}，{n} mod {B} = {r} → 需要新块"},
    "decode_block.line.no": {
        "en": "{label}: len(seq) = {n}, {n} mod {B} = {r} → fits in its last block",
        "zh": "{label}：len(seq) = {n}，{n} mod {B} = {r} → 放得进最后一块"},
    "decode_block.solution": {"en": "New blocks: **{answer}**.", "zh": "得到新块的请求：**{answer}**。"},

    # --- wasted slots ------------------------------------------------------------------------------
    "wasted_slots.task": {
        "en": "After these steps, how many slots in the blocks these requests hold contain no K/V yet? Count each "
              "physical block once.",
        "zh": "这些步骤之后，这些请求持有的块里有多少个槽还没有 K/V？每个物理块只算一次。"},
    "wasted_slots.hint": {
        "en": "A slot holds K/V once its token has been computed. The token sampled in the last step is not "
              "computed yet, and nano-vllm allocates blocks for the whole prompt at admission, even when a chunk "
              "computes only part of it.",
        "zh": "token 被计算后它的槽才有 K/V。上一步刚采样的 token 还没被计算；nano-vllm 入场时就为整个 prompt "
              "分配块，即使这一块 chunk 只计算了一部分。"},
    "wasted_slots.mis.sampled_token_stored": {
        "en": "You counted every token in len(seq) as stored. The token sampled in the last step gets its K/V only "
              "when the next step computes it.",
        "zh": "你把 len(seq) 里的每个 token 都算作已存储。上一步刚采样的 token 要等下一步计算时才写入 K/V。"},
    "wasted_slots.mis.reserved_blocks_ignored": {
        "en": "nano-vllm allocates the blocks for the whole prompt when it admits a request; the blocks reserved "
              "for later chunks are allocated and still empty.",
        "zh": "nano-vllm 在请求入场时就为整个 prompt 分配块；为后续 chunk 预留的块已经分配但仍是空的。"},
    "wasted_slots.mis.full_block_wastes": {
        "en": "A full last block has no empty slot: the waste of a block is B minus its filled slots, between 0 "
              "and B - 1 for a request's last block.",
        "zh": "填满的最后一块没有空槽：一块的浪费是 B 减去已填的槽数，请求最后一块的浪费在 0 到 B - 1 之间。"},
    "wasted_slots.mis.free_blocks_counted": {
        "en": "Free blocks are not held by any request; count only the blocks in block tables.",
        "zh": "空闲块不属于任何请求；只数 block_table 里的块。"},
    "wasted_slots.line": {
        "en": "{label}: {blocks} block(s) × {B} = {slots} slots, {computed} computed token(s) (len(seq) = {n})",
        "zh": "{label}：{blocks} 块 × {B} = {slots} 个槽，已计算 {computed} 个 token（len(seq) = {n}）"},
    "wasted_slots.solution": {
        "en": "Empty slots: **{answer}**.",
        "zh": "空槽数：**{answer}**。"},

    # --- preemption ----------------------------------------------------------------------------------
    "preemption.running": {"en": "Running queue (head first): {queue}.", "zh": "running 队列（队头在前）：{queue}。"},
    "preemption.task": {
        "en": "The next step decodes. Which request(s) does the scheduler preempt, and which blocks join the free "
              "queue because of it, in the order they join? Answer as `label: block, block, …` (or `label: none`).",
        "zh": "下一步是解码。调度器抢占哪个（些）请求？因此进入空闲队列的是哪些块、按进入顺序？"
              "按 `名字: 块号, 块号, …` 的格式回答（或 `名字: 无`）。"},
    "preemption.hint": {
        "en": "schedule() takes running requests from the head; when one cannot append (it needs a block and none "
              "is free), it preempts running.pop() — the tail. deallocate walks the victim's block_table backwards "
              "and only blocks that reach ref_count 0 join the free queue.",
        "zh": "schedule() 从 running 队头取请求；某个请求无法 append（需要新块但没有空闲块）时，抢占 running.pop()——"
              "队尾。deallocate 倒序遍历被抢占者的 block_table，只有 ref_count 减到 0 的块才进入空闲队列。"},
    "preemption.no_victim": {
        "en": "Name the preempted request first (one of {known}), then the blocks.",
        "zh": "请先写被抢占的请求（{known} 之一），再写块号。"},
    "preemption.mis.needy": {
        "en": "The request that needs a block is not the one preempted: the scheduler preempts the tail of the "
              "running queue (running.pop()), the most recently admitted.",
        "zh": "需要新块的请求并不是被抢占的那个：调度器抢占 running 队列的队尾（running.pop()），即最近入场的。"},
    "preemption.wrong_victim": {
        "en": "Not the right victim. Walk schedule()'s decode loop: who is popped when a request cannot append?",
        "zh": "被抢占者不对。按 schedule() 的解码循环走一遍：请求无法 append 时弹出的是谁？"},
    "preemption.mis.table_order": {
        "en": "deallocate walks the block_table backwards (reversed), so the last block joins the free queue first.",
        "zh": "deallocate 倒序（reversed）遍历 block_table，所以最后一块最先进入空闲队列。"},
    "preemption.mis.shared": {
        "en": "A shared block only loses one reference and stays with its other owner; only blocks that reach "
              "ref_count 0 join the free queue.",
        "zh": "共享块只是少一个引用，仍属于另一个持有者；只有 ref_count 减到 0 的块才进入空闲队列。"},
    "preemption.wrong_blocks": {
        "en": "The victim is right; look again at which of its blocks join the free queue, and in what order.",
        "zh": "被抢占者对了；再看看它的哪些块、按什么顺序进入空闲队列。"},
    "preemption.solution.why": {
        "en": "Running queue: {queue}. A request that cannot append makes the scheduler preempt the tail.",
        "zh": "running 队列：{queue}。某个请求无法 append 时，调度器抢占队尾。"},
    "preemption.solution.victim": {
        "en": "{label}: block_table {table}, released in the order {reversed}; blocks still held by another request stay.",
        "zh": "{label}：block_table {table}，按 {reversed} 的顺序释放；仍被其他请求持有的块留下。"},
    "preemption.solution": {
        "en": "Answer: **{answer}**. The freed blocks keep their hash and tokens (full ones stay hittable), the "
              "victim goes back to the head of waiting with its tokens, and when it is admitted again it re-hits "
              "whatever of its own blocks has not been evicted; the rest is recomputed.",
        "zh": "答案：**{answer}**。释放的块保留 hash 和 token（完整块仍可命中）；被抢占者带着它的 token 回到 waiting "
              "队头，再次入场时会重新命中自己尚未被逐出的块，其余部分重新计算。"},

    # --- kv bytes ------------------------------------------------------------------------------------
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

    # --- lifetime ------------------------------------------------------------------------------------
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

    # --- prefill batch / decode mask ------------------------------------------------------------------
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

    # --- a lesson's fixed question (exercises/question.py) ------------------------------------------
    "question.title": {"en": "Compute first, then check", "zh": "先算，再核对"},
    "question.mistake": {"en": "{why_en}", "zh": "{why_zh}"},
    "question.partial": {
        "en": "{count} of {total} entries are right. Look again at entry {positions} (counting from 1).",
        "zh": "{total} 项里对了 {count} 项。请再看第 {positions} 项（从 1 数起）。"},
    "question.hint": {
        "en": "Everything you need is in the cells above: the engine's state at this step and the rule of the section.",
        "zh": "需要的都在上面的单元格里：引擎在这一步的状态，以及这一节讲的规则。"},
    "question.answer": {"en": "The engine computed: `{answer}`.", "zh": "引擎算出的是：`{answer}`。"},
    "question.yes": {"en": "yes", "zh": "是"},
    "question.no": {"en": "no", "zh": "否"},

    # --- front ends ----------------------------------------------------------------------------------
    "ex.ui.check": {"en": "Check", "zh": "核对"},
    "ex.ui.hint": {"en": "Hint", "zh": "提示"},
    "ex.ui.solution": {"en": "Show solution", "zh": "显示解答"},
    "ex.ui.placeholder": {"en": "your answer", "zh": "你的答案"},
    "ex.cli.usage": {
        "en": "Type your answer, or: hint, solution, quit.",
        "zh": "输入答案，或输入：提示、答案、退出（也可用 hint、solution、quit）。"},
    "ex.cli.rows": {
        "en": "This answer is a table: type one row a line, then an empty line to check it.",
        "zh": "这道题的答案是一张表：每行输入一行，最后输入一个空行来核对。"},
    "ex.cli.bye": {"en": "Bye.", "zh": "再见。"},
    "ex.cli.next": {"en": "Next exercise:", "zh": "下一题："},
    "ex.sheet.title": {"en": "blockviz exercise sheet", "zh": "blockviz 练习单"},
    "ex.sheet.intro": {
        "en": "Compute by hand first. Each exercise has an id; `blockviz exercise ID` opens it with checking and hints.",
        "zh": "先手算。每道题都有编号；`blockviz exercise 编号` 可打开它并自动核对、给提示。"},
    "ex.sheet.answer_line": {"en": "Your answer: ______________________", "zh": "你的答案：______________________"},
    "ex.sheet.key": {"en": "Answer key", "zh": "答案"},
    "ex.sheet.answer": {"en": "Answer", "zh": "答案"},
    "ex.sheet.working": {"en": "Working", "zh": "推导"},

    # --- practice sets ---------------------------------------------------------------------------
    "ex.set.how": {
        "en": "Compute each answer by hand first, then check it: in a terminal `blockviz exercise --set {name} "
              "--lang {language}`, or in a notebook `from blockviz import exercises` and `exercises.from_id(...).widget()` "
              "(or the `exercises.make(...)` line shown). Ask for a hint before the solution.",
        "zh": "先手算每道题，再核对：终端里运行 `blockviz exercise --set {name} --lang {language}`，或在 notebook 中 "
              "`from blockviz import exercises` 后用 `exercises.from_id(...).widget()`（或题目给出的 "
              "`exercises.make(...)`）。先要提示，再看解答。"},
    "ex.set.index.title": {"en": "Practice sets", "zh": "练习集"},
    "ex.set.title": {"en": "Lesson {number} · {title}", "zh": "第 {number} 课 · {title}"},
    "ex.set.title.focus": {"en": "Lesson {number} · {title} — {focus}", "zh": "第 {number} 课 · {title}——{focus}"},
    "ex.set.index.intro": {
        "en": "One set per lesson. Every answer is computed by blockviz's engine when you check it.",
        "zh": "每课一套练习。每个答案都在核对时由 blockviz 的引擎计算。"},
    "ex.set.lesson1.intro": {
        "en": "slot = block_table[⌊t / B⌋] × B + t mod B, one token at a time and for the positions of one step.",
        "zh": "slot = block_table[⌊t / B⌋] × B + t mod B，先算单个 token，再算一步里的一段位置。"},
    "ex.set.lesson2.focus": {"en": "six states, ref_count, free keeps content", "zh": "六种状态、ref_count、释放后内容仍在"},
    "ex.set.lesson2.intro": {
        "en": "Sharing and releasing change ref_count; a freed block keeps its hash until it is allocated again.",
        "zh": "共享和释放会改变 ref_count；被释放的块在再次分配之前一直保留 hash。"},
    "ex.set.lesson3.focus": {"en": "chained hashes, first miss, last block", "zh": "链式 hash、第一个未命中、最后一块"},
    "ex.set.lesson3.intro": {
        "en": "can_allocate walks a request's chained hashes, stops at the first miss and never looks up the last "
              "block; a hit on a used block is shared, a hit on a free block is revived.",
        "zh": "can_allocate 沿请求的链式 hash 查找，遇到第一个未命中就停，从不查最后一块；命中使用中的块是共享，"
              "命中空闲块是复活。"},
    "ex.set.lesson4.focus": {"en": "when does a request need a new block?", "zh": "请求什么时候需要新块？"},
    "ex.set.lesson4.intro": {
        "en": "can_append and may_append test len(seq) % B == 1.",
        "zh": "can_append 和 may_append 的判断是 len(seq) % B == 1。"},
    "ex.set.lesson5.focus": {"en": "chunked prefill, capacity, preemption", "zh": "分块预填充、容量与抢占"},
    "ex.set.lesson5.intro": {
        "en": "Blocks are reserved for a whole prompt at admission; a full pool makes can_allocate say -1 and "
              "decode preempt the tail of the running queue.",
        "zh": "入场时就为整个 prompt 预留块；块池满时 can_allocate 返回 -1，解码会抢占 running 队尾。"},
    "ex.set.lesson6.focus": {"en": "bytes per block, slots written, prefix hits", "zh": "每块字节数、写入的槽位、前缀命中"},
    "ex.set.lesson6.intro": {
        "en": "A block costs 2 × layers × B × KV heads × head_dim × bytes per number; a request writes one slot per "
              "token the model computes; a prefix hit reuses the K/V already in the pool.",
        "zh": "一个块的字节数是 2 × 层数 × B × KV 头数 × head_dim × 每个数的字节数；模型每计算一个 token，请求就写一个槽位；"
              "前缀命中复用池里已有的 K/V。"},
    "ex.set.lesson7.focus": {"en": "the batch the model runner builds", "zh": "模型执行器构造的批次"},
    "ex.set.lesson7.intro": {
        "en": "cu_seqlens_q counts the new tokens, cu_seqlens_k the keys (cached and new), slot_mapping the slots "
              "written; decode gathers padded block tables and masks every key past context_lens.",
        "zh": "cu_seqlens_q 数新 token，cu_seqlens_k 数 key（缓存的和新的），slot_mapping 给出写入的槽位；"
              "解码按填充后的块表取回 key，并挡住 context_lens 之后的每个 key。"},
    "ex.set.lesson8.focus": {"en": "the traps #144, #163, #219", "zh": "#144、#163、#219 三个陷阱"},
    "ex.set.lesson8.intro": {
        "en": "The preset scenarios of nano-vllm's bug reports (`blockviz simulate --list`), asked of the engine at "
              "its HEAD: a fully cached aligned prompt still computes its last block, a reused block's hash leaves "
              "the map, identical prompts admitted in one step get duplicate blocks.",
        "zh": "nano-vllm 问题报告对应的预设场景（`blockviz simulate --list`），在 HEAD 版本的引擎上提问："
              "完全命中且按块对齐的提示仍要计算最后一块；被重用的块的 hash 离开映射表；同一步入场的相同提示得到重复的块。"},
    "ex.set.lesson9.focus": {"en": "predict what the class will see", "zh": "预测全班将看到什么"},
    "ex.set.lesson9.intro": {
        "en": "Requests that share a system prompt: hits on used blocks, the block each request recomputes, how far "
              "a request grows, how many blocks a --kv-memory budget gives, who is preempted.",
        "zh": "共享系统提示的请求：命中使用中的块、每个请求都要重算的那一块、一个请求能长到多少块、"
              "--kv-memory 预算能给出多少块、谁被抢占。"},
    "ex.set.lesson11.intro": {
        "en": "Every step of a run, predicted before the engine runs it: who runs, blocks allocated, cache hits, "
              "blocks freed. The first cell that differs from the engine is diagnosed.",
        "zh": "在引擎运行之前预测每一步：谁运行、分配了几个块、命中了几个块、释放了几个块。与引擎不同的第一个格子"
              "会得到诊断。"},
    "ex.set.lesson12.intro": {
        "en": "One exercise of every kind from lessons 1 to 7, shuffled so that no two neighbours come from the same "
              "lesson: each time, first work out which idea the question needs.",
        "zh": "第 1 到第 7 课每种练习各一道，顺序打乱，相邻两道不来自同一课：每次先想清楚这道题要用哪个概念。"},
    "ex.set.lesson25.title": {"en": "Lesson 25 (seed 004) · The page's own exercise",
                              "zh": "第 25 课（种子 004）· 本页自带的数值练习"},
    "ex.set.lesson25.intro": {
        "en": "B = 4, request A holds tokens 0..9 with block_table [5, 2, 7]. Write the slot_mapping of positions "
              "3..6 and explain why it is not contiguous; then write the ref_count changes when B hits A's first "
              "two full blocks. Both states are built by the engine: the pool's free queue is arranged as "
              "[5, 2, 7, 0, 1, 3, 4, 6] (Simulator(free_order=...)), so A's three blocks are 5, 2 and 7.",
        "zh": "块大小 4，A 有 token 0…9，block_table = [5, 2, 7]。写出位置 3…6 的 slot_mapping 并解释为什么不连续；"
              "再写出 B 命中 A 前两个完整块时 ref_count 的变化。两个状态都由引擎构造：空闲队列排成 "
              "[5, 2, 7, 0, 1, 3, 4, 6]（Simulator(free_order=...)），所以 A 的三个块正是 5、2、7。"},
    "ex.set.note.seed004_slots": {
        "en": "Seed 004's exercise (B = 4, A holds tokens 0..9, block_table [5, 2, 7]). After checking, explain "
              "why the slot_mapping is not contiguous.",
        "zh": "种子 004 的练习（B = 4，A 有 token 0…9，block_table = [5, 2, 7]）。核对后，解释 slot_mapping 为什么不连续。"},
    "ex.set.note.seed004_refs": {
        "en": "Seed 004's second part: B repeats A's first 8 tokens, so it can hit A's first two full blocks. "
              "Write each block's ref_count after B's admission; then say how each one changed.",
        "zh": "种子 004 的第二部分：B 重复了 A 的前 8 个 token，可以命中 A 的前两个完整块。写出 B 入场后各块的 "
              "ref_count，再说出每块是怎么变化的。"},
    "ex.set.note.states": {
        "en": "Use only the raw columns: free queue position, ref_count, hash, and where hash_to_block_id points.",
        "zh": "只用原始列判断：空闲队列位置、ref_count、hash，以及 hash_to_block_id 指向哪里。"},
    "ex.set.note.hit_pattern": {
        "en": "Compare R's prefixes with the map's prefixes block by block.",
        "zh": "逐块把 R 的前缀与映射表中的前缀对比。"},
    "ex.set.note.cost": {
        "en": "Before answering, decide for each hit whether its block is in use or in the free queue.",
        "zh": "作答前，先判断每个命中的块是在使用中还是在空闲队列里。"},
    "ex.set.note.decode": {
        "en": "len(seq) includes the token sampled in the last step.",
        "zh": "len(seq) 包含上一步刚采样的 token。"},
    "ex.set.note.kv_default": {
        "en": "Lesson 06's model on the CPU (float32), with blocks of 16 tokens.",
        "zh": "第 06 课的模型在 CPU 上（float32），块大小 16 个 token。"},
    "ex.set.note.kv_qwen": {
        "en": "nano-vllm's default block of 256 tokens, with a Qwen3-0.6B-shaped model in bfloat16.",
        "zh": "nano-vllm 默认的 256 token 块，模型形状同 Qwen3-0.6B，bfloat16。"},
    "ex.set.note.again": {
        "en": "A finished; its prompt comes again. Which of its blocks can be found?",
        "zh": "A 已完成；同样的提示再来一次。它的哪些块能被找到？"},
    "ex.set.note.lifetime": {
        "en": "The last sampled token is never computed.",
        "zh": "最后采样的 token 从不计算。"},
    "ex.set.note.lesson7_batch": {
        "en": "Lesson 07's batch, one token per character: A ran first; then B (A's prompt and a little more) and C "
              "(nothing cached) share one prefill step.",
        "zh": "第 07 课的批次，每个字符一个 token：A 先运行；然后 B（A 的提示再多一点）和 C（没有缓存）共用一个预填充步。"},
    "ex.set.note.decode_mask": {
        "en": "Block tables are padded with -1 to the longest one; the padding reads block 0.",
        "zh": "块表用 -1 填充到最长的那个；填充读的是块 0。"},
    "ex.set.note.n144": {
        "en": "#144: A's prompt is exactly two blocks; after A finishes, the same prompt comes again "
              "(preset nano144_aligned_prompt).",
        "zh": "#144：A 的提示正好两块；A 完成后，同样的提示再来一次（预设 nano144_aligned_prompt）。"},
    "ex.set.note.n144_slots": {
        "en": "#144 again: B's whole prompt is in the cache, yet its last block is computed again. Into which slots?",
        "zh": "还是 #144：B 的整个提示都在缓存里，最后一块却要重新计算。写进哪些槽位？"},
    "ex.set.note.n163": {
        "en": "#163: C's allocations reuse A's old blocks; then D sends A's prompt again (preset nano163_reused_block).",
        "zh": "#163：C 的分配重用了 A 的旧块；随后 D 再次发送 A 的提示（预设 nano163_reused_block）。"},
    "ex.set.note.n219": {
        "en": "#219: A and B, with the same prompt, are admitted in the same step (preset nano219_duplicate_blocks).",
        "zh": "#219：提示相同的 A 和 B 在同一步入场（预设 nano219_duplicate_blocks）。"},
    "ex.set.note.n219_after": {
        "en": "#219 once both have finished: the same content twice, but the map points to one copy only.",
        "zh": "#219，两者都完成之后：同样的内容有两份，但映射表只指向其中一份。"},
    "ex.set.note.demo_share": {
        "en": "The demo's first moment, small: the second request arrives while the first, with the same system "
              "prompt, is still running.",
        "zh": "演示的第一个时刻（缩小版）：第二个请求到达时，系统提示相同的第一个请求还在运行。"},
    "ex.set.note.demo_memory": {
        "en": "`blockviz demo --model PATH --kv-memory 2G` on a GPU with a Qwen3-0.6B-shaped checkpoint (bfloat16) and "
              "the demo's blocks of 16 tokens.",
        "zh": "在 GPU 上运行 `blockviz demo --model PATH --kv-memory 2G`，模型形状同 Qwen3-0.6B（bfloat16），"
              "演示默认块大小 16 个 token。"},
    "ex.set.note.capstone": {
        "en": "The capstone's run: a shared prefix, a pool too small for both, a preemption, a return.",
        "zh": "综合练习的那段运行：共享前缀、放不下两个请求的块池、一次抢占、一次重新入场。"},
    "ex.set.note.preempt": {
        "en": "Walk schedule()'s decode loop request by request.",
        "zh": "按 schedule() 的解码循环逐个请求走一遍。"},

    # --- steps_table (lesson 11, the capstone) ------------------------------------------------
    "steps_table.title": {"en": "The whole run, step by step", "zh": "整段运行，逐步预测"},
    "steps_table.before": {"en": "before step {step}: ", "zh": "第 {step} 步之前："},
    "steps_table.task": {
        "en": "Every request runs until it reaches max_tokens (no end-of-sequence token). Predict steps 1 to "
              "{steps}, one line per step: `who runs | blocks allocated | cache hits | blocks freed`, for example "
              "`A B | 1 | 0 | 0`. Who runs: the requests the step computes (prefill or decode). Allocated: blocks "
              "_allocate_block hands out (allocate and may_append). Hits: blocks a new or returning request "
              "finds in the cache (shared or revived). Freed: blocks whose ref_count drops to 0.",
        "zh": "每个请求都运行到 max_tokens 为止（没有结束符）。预测第 1 到第 {steps} 步，每步一行："
              "`谁运行 | 分配的块数 | 缓存命中数 | 释放的块数`，例如 `A B | 1 | 0 | 0`。谁运行：这一步计算的请求"
              "（预填充或解码）。分配：_allocate_block 交出的块（allocate 和 may_append）。命中：新来或"
              "重新入场的请求在缓存里找到的块（共享或复活）。释放：ref_count 降到 0 的块。"},
    "steps_table.hint": {
        "en": "Go one step at a time, in schedule()'s order. If a request is waiting, try to admit it: "
              "can_allocate walks its full blocks (never the last one) and needs a free block for every block "
              "that is not a hit on a used block; a step with a prefill decodes nobody. Otherwise every running "
              "request decodes; one whose length is 1 more than a multiple of B needs a new block, and if none "
              "is free the tail of running is preempted (deallocate). A request that reaches max_tokens "
              "releases its blocks in the same step.",
        "zh": "一步一步来，按 schedule() 的顺序。若有请求在等待，先试着让它入场：can_allocate 遍历它的完整块"
              "（最后一块不查），除命中使用中块之外，每块都要一个空闲块；有预填充的一步不做解码。否则所有"
              "运行中的请求都解码；长度比 B 的倍数多 1 的请求需要新块，没有空闲块时抢占运行队列队尾的请求"
              "（deallocate）。达到 max_tokens 的请求在同一步释放它的块。"},
    "steps_table.col.step": {"en": "step", "zh": "步"},
    "steps_table.col.phase": {"en": "phase", "zh": "阶段"},
    "steps_table.col.runs": {"en": "who runs", "zh": "谁运行"},
    "steps_table.col.allocated": {"en": "blocks allocated", "zh": "分配的块数"},
    "steps_table.col.hits": {"en": "cache hits", "zh": "缓存命中数"},
    "steps_table.col.freed": {"en": "blocks freed", "zh": "释放的块数"},
    "steps_table.col.notes": {"en": "what happened", "zh": "发生了什么"},
    "steps_table.phase.prefill": {"en": "prefill", "zh": "预填充"},
    "steps_table.phase.decode": {"en": "decode", "zh": "解码"},
    "steps_table.note.refused": {
        "en": "{label} waits: needs {need} free block(s), the free queue holds {free}",
        "zh": "{label} 等待：需要 {need} 个空闲块，只有 {free} 个"},
    "steps_table.note.appended": {"en": "{n} block(s) by may_append", "zh": "may_append 取了 {n} 个块"},
    "steps_table.note.revived": {"en": "{n} cached-free block(s) revived", "zh": "复活了 {n} 个可复用缓存块"},
    "steps_table.solution": {
        "en": "The engine's run, in the answer's format:",
        "zh": "引擎的运行结果，按答题格式写出："},
    "steps_table.first.runs": {
        "en": "The rows before step {step} match the engine; the first cell that differs is step {step}'s "
              "“who runs”.",
        "zh": "第 {step} 步之前的行都与引擎一致；第一个不同的格子是第 {step} 步的“谁运行”。"},
    "steps_table.first.allocated": {
        "en": "The rows before step {step} match the engine; the first cell that differs is step {step}'s "
              "“blocks allocated”.",
        "zh": "第 {step} 步之前的行都与引擎一致；第一个不同的格子是第 {step} 步的“分配的块数”。"},
    "steps_table.first.hits": {
        "en": "The rows before step {step} match the engine; the first cell that differs is step {step}'s "
              "“cache hits”.",
        "zh": "第 {step} 步之前的行都与引擎一致；第一个不同的格子是第 {step} 步的“缓存命中数”。"},
    "steps_table.first.freed": {
        "en": "The rows before step {step} match the engine; the first cell that differs is step {step}'s "
              "“blocks freed”.",
        "zh": "第 {step} 步之前的行都与引擎一致；第一个不同的格子是第 {step} 步的“释放的块数”。"},
    "steps_table.mis.preempted": {
        "en": "{label} does not run in this step: a running request needs a new block and none is free, so "
              "schedule() preempts the tail of the running queue, and {label} goes back to waiting.",
        "zh": "{label} 这一步不运行：有运行中的请求需要新块而没有空闲块，schedule() 抢占运行队列的队尾，"
              "{label} 回到等待队列。"},
    "steps_table.mis.refused": {
        "en": "{label} cannot be admitted in this step: it needs {need} free block(s) and the free queue holds "
              "{free}, so can_allocate returns -1 and it keeps waiting.",
        "zh": "{label} 这一步进不来：它需要 {need} 个空闲块，而空闲的只有 {free} 个，can_allocate 返回 -1，"
              "它继续等待。"},
    "steps_table.mis.not_there": {
        "en": "{label} is not there in this step: it has not arrived yet, or it has already finished.",
        "zh": "{label} 这一步不在：它还没到达，或者已经完成了。"},
    "steps_table.mis.prefill_only": {
        "en": "A step is all prefill or all decode: when a waiting request is admitted, the step prefills only, "
              "and the running requests such as {label} decode in a later step.",
        "zh": "一步要么全是预填充，要么全是解码：有等待的请求入场时，这一步只做预填充，像 {label} 这样"
              "运行中的请求要等之后的步骤再解码。"},
    "steps_table.mis.readmitted": {
        "en": "A preempted request is not gone: it waits at the head of the waiting queue and is admitted again "
              "as soon as can_allocate finds enough free blocks.",
        "zh": "被抢占的请求并没有消失：它排在等待队列队头，一旦 can_allocate 找到足够的空闲块就会再次入场。"},
    "steps_table.mis.admitted": {
        "en": "Someone you left out is admitted in this step: check can_allocate for each waiting request in "
              "order, with the free blocks as they are now.",
        "zh": "有一个你漏掉的请求在这一步入场：按顺序对每个等待的请求检查 can_allocate，用此刻的空闲块数。"},
    "steps_table.mis.decode_all": {
        "en": "A decode step computes one token for every running request that is not preempted.",
        "zh": "解码步为每个没被抢占的运行中请求各计算一个 token。"},
    "steps_table.mis.runs": {
        "en": "Check the queues before this step: who is waiting, who is running, who has finished.",
        "zh": "检查这一步之前的队列：谁在等待，谁在运行，谁已经完成。"},
    "steps_table.mis.revived_allocated": {
        "en": "You counted a revived block as allocated. A hit on a free block is taken back by allocate "
              "itself (ref_count 1), not handed out by _allocate_block: it is a hit, not an allocation.",
        "zh": "你把被复活的块算成了分配。命中空闲块是 allocate 自己把它取回（ref_count 置 1），不经过 "
              "_allocate_block：它是命中，不是分配。"},
    "steps_table.mis.shared_allocated": {
        "en": "You counted a shared block as allocated. A hit on a used block only gains a reference; no block "
              "leaves the free queue for it.",
        "zh": "你把共享的块算成了分配。命中使用中的块只是多一个引用，不会有块为此离开空闲队列。"},
    "steps_table.mis.boundary": {
        "en": "A decode crosses a block boundary here: a request whose length is 1 more than a multiple of B "
              "has its new token in a new block, so may_append takes one.",
        "zh": "这一步有解码跨过了块边界：长度比 B 的倍数多 1 的请求，新 token 落在新块里，所以 may_append "
              "要取一个块。"},
    "steps_table.mis.no_boundary": {
        "en": "No decode starts a new block in this step: may_append takes a block only when the request's "
              "length is 1 more than a multiple of B.",
        "zh": "这一步没有解码开始新块：只有请求长度比 B 的倍数多 1 时，may_append 才取块。"},
    "steps_table.mis.allocated": {
        "en": "Count what _allocate_block hands out: one block for every logical block of an admitted request "
              "after its cache hits, and one for each decode that starts a new block.",
        "zh": "数一数 _allocate_block 交出的块：入场请求命中之后的每个逻辑块各一个，再加上每个开始新块的解码"
              "各一个。"},
    "steps_table.mis.free_is_miss": {
        "en": "You treated a hit on a free block as a miss. A block in the free queue keeps its tokens and its "
              "map entry until it is reused, so can_allocate still finds it: a hit, revived by allocate.",
        "zh": "你把命中空闲块当成了未命中。空闲队列里的块在被重新使用之前，token 和映射项都还在，所以 "
              "can_allocate 仍能找到它：这是命中，由 allocate 复活。"},
    "steps_table.mis.used_missed": {
        "en": "You missed a hit on a used block. The map still has the shared prefix's chained hashes while "
              "another request holds those blocks: the new request shares them (ref_count + 1).",
        "zh": "你漏掉了命中使用中的块。别的请求还持有这些块时，映射表里仍有这段共享前缀的链式 hash："
              "新请求共享它们（ref_count 加 1）。"},
    "steps_table.placeholder": {
        "en": "one line per step: who runs | blocks allocated | cache hits | blocks freed",
        "zh": "每步一行：谁运行 | 分配的块数 | 缓存命中数 | 释放的块数"},
    "steps_table.mis.decode_no_hits": {
        "en": "A decode step looks nothing up in the cache: only admission (can_allocate, then allocate) finds hits.",
        "zh": "解码步不查缓存：只有入场（先 can_allocate，再 allocate）才会找到命中。"},
    "steps_table.mis.last_block": {
        "en": "You counted the last block as a hit. can_allocate walks range(num_blocks - 1): the last block is "
              "never looked up, even when it is full.",
        "zh": "你把最后一块算成了命中。can_allocate 只遍历 range(num_blocks - 1)：最后一块即使填满也不查。"},
    "steps_table.mis.hits": {
        "en": "Walk each admitted request's full blocks in order: a hit while the map has the block's chained "
              "hash (used or free), stopping at the first miss.",
        "zh": "按顺序走一遍每个入场请求的完整块：映射表里有这一块的链式 hash 就是命中（不论使用中还是空闲），"
              "遇到第一个未命中就停。"},
    "steps_table.mis.shared_kept": {
        "en": "You counted every released reference as a freed block. A block another request still holds only "
              "loses one reference; it returns to the free queue when its ref_count reaches 0.",
        "zh": "你把每次释放引用都算成了释放块。另一个请求还持有的块只是少了一个引用；ref_count 降到 0 时它才回到"
              "空闲队列。"},
    "steps_table.mis.preemption_frees": {
        "en": "Preemption calls deallocate: the blocks only the victim holds go back to the free queue in this step.",
        "zh": "抢占会调用 deallocate：只有被抢占者持有的块在这一步就回到空闲队列。"},
    "steps_table.mis.finish_frees": {
        "en": "A request that reaches max_tokens in this step is deallocated in the same step's postprocess: its "
              "blocks are freed now.",
        "zh": "在这一步达到 max_tokens 的请求，会在同一步的 postprocess 中被 deallocate：它的块现在就释放。"},
    "steps_table.mis.freed": {
        "en": "Count the blocks whose ref_count reaches 0 in this step: those of a request that finishes or is "
              "preempted, and not held by anyone else.",
        "zh": "数一数这一步 ref_count 降到 0 的块：属于完成或被抢占的请求、且没有别人持有的块。"},

    # --- lesson 10: a real vLLM, from recorded KV events (kinds/recorded.py, vllm_cached, router_pick) ----
    "vllm_cached.title": {"en": "Predict a real vLLM's cached tokens", "zh": "预测真实 vLLM 复用的 token 数"},
    "router_pick.title": {"en": "Where a KV-aware router sends a prompt", "zh": "按 KV 缓存路由的路由器把提示发往哪里"},
    "recorded.note": {
        "en": "*Recorded from a real vLLM server: the blocks its KV events say it caches (scripts/record_lesson10.py).*",
        "zh": "*录自真实的 vLLM 服务器：它的 KV 事件报告的缓存块（scripts/record_lesson10.py）。*"},
    "recorded.col.instance": {"en": "instance", "zh": "实例"},
    "recorded.col.block": {"en": "block hash", "zh": "块 hash"},
    "recorded.col.parent": {"en": "parent hash", "zh": "父块 hash"},
    "recorded.col.tokens": {"en": "its tokens, as text", "zh": "它的 token（文本）"},
    "recorded.col.logical": {"en": "block", "zh": "块"},
    "recorded.col.count": {"en": "tokens", "zh": "token 数"},
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
    "ex.set.lesson10.focus": {"en": "predict what vLLM reuses, and where a router sends", "zh": "预测 vLLM 复用什么，路由器发往哪里"},
    "ex.set.lesson10.intro": {
        "en": "Caches recorded from real vLLM servers' KV events: the cached tokens of a prompt (whole blocks, "
              "the num_tokens − 1 cap, the first miss), and the instance a KV-aware router picks.",
        "zh": "录自真实 vLLM 服务器 KV 事件的缓存：一个提示复用多少 token（整块、num_tokens − 1 的上限、第一个未命中），"
              "以及按 KV 缓存路由的路由器选哪个实例。"},
    "ex.set.note.recorded": {
        "en": "The cache at the end of lesson 10's recorded run, on one server.",
        "zh": "第 10 课录下的那段运行结束时，一台服务器上的缓存。"},
    "ex.set.note.router": {
        "en": "Two instances at the end of lesson 10's recorded router run.",
        "zh": "第 10 课录下的路由运行结束时的两个实例。"},
}
