"""Strings of blockviz/exercises/kinds/preempt.py: preemption."""

STRINGS: dict[str, dict[str, str]] = {
    "preemption.title": {"en": "Preemption victim and its blocks", "zh": "抢占对象及其块"},
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
}
