"""Strings of blockviz/exercises/kinds/slots.py: slot, slot_mapping."""

STRINGS: dict[str, dict[str, str]] = {
    "slot.title": {"en": "Slot of one token", "zh": "单个 token 的 slot"},
    "slot_mapping.title": {"en": "slot_mapping of one step", "zh": "一步的 slot_mapping"},
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
}
