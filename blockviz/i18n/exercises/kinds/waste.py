"""Strings of blockviz/exercises/kinds/waste.py: wasted_slots."""

STRINGS: dict[str, dict[str, str]] = {
    "wasted_slots.title": {"en": "Empty slots in allocated blocks", "zh": "已分配块里的空槽"},
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
}
