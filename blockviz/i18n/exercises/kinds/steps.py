"""Strings of blockviz/exercises/kinds/steps.py: steps_table, the capstone."""

STRINGS: dict[str, dict[str, str]] = {
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
}
