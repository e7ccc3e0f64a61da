"""Strings of blockviz/exercises/kinds/decode.py: decode_block."""

STRINGS: dict[str, dict[str, str]] = {
    "decode_block.title": {"en": "Does a decode step need a new block?", "zh": "解码这一步要不要新块？"},
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
}
