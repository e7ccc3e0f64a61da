"""Interface strings of the radix-tree view (blockviz/views/render_radix.py) and of the two designs' table
(blockviz/views/render_designs.py)."""

STRINGS: dict[str, dict[str, str]] = {
    "radix.title": {"en": "SGLang's radix tree: {n} nodes, {tokens} tokens cached ({evictable} evictable, "
                          "{protected} locked)",
                    "zh": "SGLang 的基数树：{n} 个节点，缓存 {tokens} 个 token（可逐出 {evictable}，已锁定 {protected}）"},
    "radix.note": {"en": "each edge: its tokens; lock = requests using the node; evict #k = the k-th leaf "
                         "the {policy} policy frees",
                   "zh": "每条边：它的 token；lock = 正在使用该节点的请求数；evict #k = {policy} 策略第 k 个释放的叶子"},
    "radix.lock": {"en": "lock {n}", "zh": "锁 {n}"},
    "radix.evict": {"en": "evict #{n}", "zh": "逐出第 {n} 个"},
    "radix.tokens": {"en": "{n} tokens", "en.one": "1 token", "zh": "{n} 个 token"},
    "radix.empty": {"en": "the tree is empty: nothing is cached", "zh": "树是空的：没有缓存任何内容"},
    "radix.more": {"en": "{n} more nodes not drawn (max_nodes={cap})",
                   "en.one": "1 more node not drawn (max_nodes={cap})",
                   "zh": "另有 {n} 个节点未画出（max_nodes={cap}）"},

    # the two designs side by side (blockviz/views/render_designs.py)
    "designs.request": {"en": "request", "zh": "请求"},
    "designs.prompt": {"en": "prompt tokens", "zh": "提示 token 数"},
    "designs.hit": {"en": "hit", "zh": "命中"},
    "designs.recompute": {"en": "recompute", "zh": "重算"},
    "designs.evict": {"en": "evicted", "zh": "逐出"},
    "designs.total": {"en": "total", "zh": "合计"},
}
