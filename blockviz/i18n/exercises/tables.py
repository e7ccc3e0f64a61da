"""Strings of blockviz/exercises/tables.py: the pictures of an engine state in prompts."""

STRINGS: dict[str, dict[str, str]] = {
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
}
