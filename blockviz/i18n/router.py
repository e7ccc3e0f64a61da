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
}
