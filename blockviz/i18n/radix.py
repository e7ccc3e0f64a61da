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
    "radix.folded": {"en": "⋯ {n} nodes not drawn here", "en.one": "⋯ 1 node not drawn here",
                     "zh": "⋯ 此处有 {n} 个节点未画出"},
    "radix.more": {"en": "{n} more nodes not drawn (max_nodes={cap})",
                   "en.one": "1 more node not drawn (max_nodes={cap})",
                   "zh": "另有 {n} 个节点未画出（max_nodes={cap}）"},

    "dash.radix": {"en": "radix tree", "zh": "基数树"},   # the dashboard's tab (blockviz/views/dashboard.py)

    # narration of the recording's events under policy "sglang" (blockviz/views/render_events.py)
    "ev.tree_hit": {"en": "{seq} finds #{block} in the radix tree: ref_count → {ref}",
                    "zh": "{seq}在基数树中找到#{block}：ref_count → {ref}"},
    "ev.page_freed": {"en": "#{block} joins the free queue tail: no request holds it and the tree keeps none of it",
                      "zh": "#{block}进入空闲队列尾部：没有请求持有它，树也不保留它"},
    "ev.page_joins": {"en": ", it joins the free queue tail", "zh": "，进入空闲队列尾部"},
    "ev.page_cached": {"en": ", it stays in the radix tree, cached (evictable): the pool shows it cached-free",
                       "zh": "，留在基数树中作为缓存（可逐出）：池中显示为可复用缓存"},
    "ev.page_dedup": {"en": "insert: block {i} of {seq} is already in the tree on #{tree}: its table points there, "
                            "#{own} is given up",
                      "zh": "insert：{seq}的第{i}块已在树中的#{tree}上：块表改指向它，放弃#{own}"},
    "ev.node_insert": {"en": "insert: {seq} hangs node {node} under node {parent}: {n} tokens {tokens} on pages {pages}",
                       "en.one": "insert: {seq} hangs node {node} under node {parent}: 1 token {tokens} on page {pages}",
                       "zh": "insert：{seq}在节点{parent}下挂上节点{node}：{n}个token {tokens}，页{pages}"},
    "ev.node_split": {"en": "split: node {new} takes the first {n} tokens of node {node}'s edge, node {node} hangs below it",
                      "en.one": "split: node {new} takes the first token of node {node}'s edge, node {node} hangs below it",
                      "zh": "分裂：节点{new}取走节点{node}的边的前{n}个token，节点{node}挂在它下面"},
    "ev.node_touch": {"en": "{seq}'s walk reaches node {node}: it and the nodes above it are accessed (tick {time})",
                      "zh": "{seq}沿树走到节点{node}：它和上面的节点都被访问（时刻{time}）"},
    "ev.nodes_hit": {"en": "insert counts a hit on nodes {nodes}", "zh": "insert为节点{nodes}各计一次命中"},
    "ev.lock_inc": {"en": "inc_lock_ref: {seq} locks node {node} and every node above it",
                    "zh": "inc_lock_ref：{seq}锁住节点{node}及其上的每个节点"},
    "ev.lock_dec": {"en": "dec_lock_ref: {seq} unlocks node {node} and every node above it",
                    "zh": "dec_lock_ref：{seq}解锁节点{node}及其上的每个节点"},
    "ev.leaf_evict": {"en": "evict: leaf node {node} leaves the tree, its pages given up (for {seq})",
                      "zh": "evict：叶子节点{node}离开树，交出它的页（为{seq}腾出空间）"},

    # the two designs side by side (blockviz/views/render_designs.py)
    "designs.request": {"en": "request", "zh": "请求"},
    "designs.prompt": {"en": "prompt tokens", "zh": "提示 token 数"},
    "designs.hit": {"en": "hit", "zh": "命中"},
    "designs.recompute": {"en": "recompute", "zh": "重算"},
    "designs.evict": {"en": "evicted", "zh": "逐出"},
    "designs.total": {"en": "total", "zh": "合计"},
}
