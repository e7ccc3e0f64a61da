"""Strings of blockviz/exercises/kinds/refs.py: ref_counts."""

STRINGS: dict[str, dict[str, str]] = {
    "ref_counts.title": {"en": "ref_count after sharing and release", "zh": "共享与释放后的 ref_count"},
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
}
