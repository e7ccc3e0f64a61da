"""Strings of blockviz/exercises/kinds/pool.py: pool_states, next_block."""

STRINGS: dict[str, dict[str, str]] = {
    "pool_states.title": {"en": "Six block states", "zh": "块的六种状态"},
    "next_block.title": {"en": "Which block the next allocation takes", "zh": "下一次分配取哪个块"},
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
}
