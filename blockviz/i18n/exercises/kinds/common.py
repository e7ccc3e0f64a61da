"""Strings of blockviz/exercises/kinds/common.py: the narration of a setup, shared by the scenario kinds."""

STRINGS: dict[str, dict[str, str]] = {
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
}
