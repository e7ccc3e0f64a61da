"""Strings of blockviz/exercises/sets.py: the practice sets."""

STRINGS: dict[str, dict[str, str]] = {
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
    "ex.set.lesson0.focus": {"en": "blocks taken, the empty tail, the bytes", "zh": "占用的块、空着的尾部、字节数"},
    "ex.set.lesson0.intro": {
        "en": "The whole game in numbers: how many blocks a prefill takes and a request holds at its longest, the "
              "slots its last block leaves empty (paging's only waste), and what a block costs at a real model's size.",
        "zh": "用数字看整场比赛：一次预填充占几块、一个请求最长时占几块、最后一块空着的槽位（分页唯一的浪费），"
              "以及按真实模型的规模一块要多少字节。"},
    "ex.set.note.start_blocks": {
        "en": "Lesson 0's first question again: a prompt into an empty pool takes ⌈tokens / B⌉ blocks.",
        "zh": "第 0 课的第一道题：一个提示进入空池，占 ⌈token 数 / B⌉ 块。"},
    "ex.set.note.start_waste": {
        "en": "A contiguous reservation wastes everything past what a request uses; a block wastes only the empty "
              "tail of each request's last block.",
        "zh": "连续预留浪费请求用不到的全部空间；分块只浪费每个请求最后一块里空着的尾部。"},
    "ex.set.note.start_scale": {
        "en": "Lesson 0's real scale: Qwen3-0.6B's K and V, every layer, for one token; then a KV budget in blocks.",
        "zh": "第 0 课的真实规模：Qwen3-0.6B 一个 token 在所有层的 K 和 V；再把 KV 预算换算成块数。"},
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
    "ex.set.note.seed004_slots": {
        "en": "Lesson 1's worked example (B = 4, A holds tokens 0..9, block_table [5, 2, 7]). After checking, explain "
              "why the slot_mapping is not contiguous.",
        "zh": "第 1 课的例题（B = 4，A 有 token 0…9，block_table = [5, 2, 7]）。核对后，解释 slot_mapping 为什么不连续。"},
    "ex.set.note.seed004_refs": {
        "en": "The same example, continued: B repeats A's first 8 tokens, so it can hit A's first two full blocks. "
              "Write each block's ref_count after B's admission; then say how each one changed.",
        "zh": "同一个例题的后半部分：B 重复了 A 的前 8 个 token，可以命中 A 的前两个完整块。写出 B 入场后各块的 "
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
    "ex.set.lesson10.focus": {"en": "predict what vLLM reuses", "zh": "预测 vLLM 复用什么"},
    "ex.set.lesson10.intro": {
        "en": "Caches recorded from a real vLLM server's KV events: the cached tokens of a prompt (whole blocks, "
              "the num_tokens − 1 cap, the first miss).",
        "zh": "录自真实 vLLM 服务器 KV 事件的缓存：一个提示复用多少 token（整块、num_tokens − 1 的上限、第一个未命中）。"},
    "ex.set.lesson10b.focus": {"en": "where a KV-aware router sends a prompt", "zh": "按 KV 缓存路由的路由器把提示发往哪里"},
    "ex.set.lesson10b.intro": {
        "en": "Two vLLM instances' caches recorded from their KV events: the instance a KV-aware router picks for "
              "a prompt (the longest predicted cached prefix, then the first).",
        "zh": "从 KV 事件录下的两个 vLLM 实例的缓存：按 KV 缓存路由的路由器为一个提示选哪个实例（预测缓存前缀最长的，再取排在前面的）。"},
    "ex.set.note.recorded": {
        "en": "The cache at the end of lesson 10's recorded run, on one server.",
        "zh": "第 10 课录下的那段运行结束时，一台服务器上的缓存。"},
    "ex.set.note.router": {
        "en": "Two instances at the end of the router lesson's recorded run.",
        "zh": "路由一课录下的那段运行结束时的两个实例。"},
    "ex.set.lesson13.focus": {"en": "how many GiB a cache needs for real traffic",
                              "zh": "真实流量下缓存要多少 GiB"},
    "ex.set.lesson13.intro": {
        "en": "A shipped trace's one-pass curve at a table of pool sizes, and a model's KV shape: the smallest pool "
              "that reaches a share of the maximum, in GiB, on a GPU alone or as a CPU tier beside one.",
        "zh": "一份随附请求记录的一遍曲线（一张池子大小的表）和一个模型的 KV 形状：达到最大值某个比例的最小池子，"
              "以 GiB 计，只用 GPU，或者作为 GPU 旁边的 CPU 层。"},
    "ex.set.note.cache_half": {
        "en": "Lesson 13's question: half of what an infinite cache serves, on a GPU.",
        "zh": "第 13 课的问题：在 GPU 上达到无限大缓存的一半。"},
    "ex.set.note.cache_cpu": {
        "en": "A CPU tier as vLLM's offloading keeps one: does it add to the GPU pool?",
        "zh": "按 vLLM 卸载方式配的 CPU 层：它是和 GPU 池相加吗？"},
    "ex.set.lesson8b.focus": {"en": "what a hash chain and a radix tree each recompute",
                              "zh": "哈希链和基数树各要重算多少"},
    "ex.set.lesson8b.intro": {
        "en": "The same requests, one at a time, through nano-vllm's blocks and SGLang's radix tree: how many of a new "
              "prompt's tokens each one recomputes. Both engines compute every answer.",
        "zh": "同样的请求，一个接一个，分别通过 nano-vllm 的块和 SGLang 的基数树：新提示的 token 各要重算多少个。"
              "每个答案都由两个引擎算出。"},
    "ex.set.note.last_block": {
        "en": "Lesson 08b's question: a block-aligned prompt again, SGLang with its default page of one token.",
        "zh": "第 08b 课的问题：再来一次按块对齐的提示，SGLang 用它默认的每页一个 token。"},
    "ex.set.note.same_page": {
        "en": "The same page size in both designs: does the tree still recompute less?",
        "zh": "两种设计的页大小相同：树还会重算得更少吗？"},
}
