"""Interface strings of the KV-aware router (vllm/router.py) and the fleet view (views/fleet.py)."""

STRINGS: dict[str, dict[str, str]] = {
    "router.tokens_at": {"en": "{name} {n}", "zh": "{name} {n}"},
    "router.list_sep": {"en": ", ", "zh": "、"},
    "router.why.longest": {"en": "{name} holds the longest cached prefix: {n} tokens (cached per instance: {all})",
                           "zh": "{name}缓存的前缀最长：{n}个token（各实例缓存：{all}）"},
    "router.why.tie_load": {"en": "{tied} each hold {n} cached tokens; {name} has the fewest requests ({load})",
                            "zh": "{tied}都缓存了{n}个token；{name}的请求最少（{load}个）"},
    "router.why.tie_order": {"en": "{tied} each hold {n} cached tokens and as many requests ({load}); {name} "
                                   "comes first",
                             "zh": "{tied}都缓存了{n}个token，请求数也相同（{load}个）；{name}排在最前"},
    "router.why.cold_load": {"en": "no instance holds any of this prompt; {name} has the fewest requests ({load})",
                             "zh": "没有实例缓存这个提示词的任何部分；{name}的请求最少（{load}个）"},
    "router.why.cold_order": {"en": "no instance holds any of this prompt, and all have as many requests ({load}); "
                                    "{name} comes first",
                              "zh": "没有实例缓存这个提示词的任何部分，各实例请求数相同（{load}个）；{name}排在最前"},
    "router.why.round_robin": {"en": "round-robin: its turn is {name}'s, which holds {n} cached tokens "
                                     "(cached per instance: {all})",
                               "zh": "轮询：轮到{name}，它缓存了{n}个token（各实例缓存：{all}）"},
    "fleet.waiting": {"en": "waiting for KV events…", "zh": "等待KV事件…"},
    "fleet.title": {"en": "{n} vLLM instances · step {step}", "zh": "{n}个vLLM实例 · 第{step}步"},
    "fleet.prompt_size": {"en": "a prompt of {n} tokens", "zh": "提示词共{n}个token"},
    "fleet.no_prompt": {"en": "give a prompt to see where a KV-aware router sends it",
                        "zh": "给出一个提示词，看KV感知路由器把它发往哪个实例"},
    "fleet.cap": {"en": "the prompt ends on a block boundary: vLLM computes its last block again, for the last "
                        "token's logits (the num_tokens − 1 cap)",
                  "zh": "提示词恰好在块边界结束：vLLM会为最后一个token的logits重新计算最后一块（num_tokens − 1上限）"},
    "fleet.instance": {"en": "{name} · cached blocks: {n}", "zh": "{name} · 已缓存块：{n}"},
    "fleet.chosen": {"en": "KV-aware router's choice", "zh": "KV感知路由器的选择"},
    "fleet.turn": {"en": "round-robin's turn", "zh": "轮询轮到它"},
    "fleet.cached": {"en": "this prompt here: {n} of {total} tokens from the cache",
                     "zh": "这个提示词在此：{total}个token中有{n}个来自缓存"},
    "fleet.prompt": {"en": "the prompt's blocks on this instance", "zh": "提示词各块在此实例上的情况"},
    "fleet.block.hit": {"en": "block {i}: cached here, taken from the cache: “{tokens}”",
                        "zh": "第{i}块：此处已缓存，直接复用：“{tokens}”"},
    "fleet.block.miss": {"en": "block {i}: computed here: “{tokens}”", "zh": "第{i}块：在此计算：“{tokens}”"},
    "fleet.block.partial": {"en": "the last {n} tokens fill no block: always computed: “{tokens}”",
                            "zh": "最后{n}个token不满一块：总要计算：“{tokens}”"},
}
