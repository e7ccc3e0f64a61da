"""Interface strings of the designs view: SGLang's token pool (blockviz/views/render_pages.py), each
design's cache after a request (blockviz/views/render_after.py) and the widget (designs_widget.py)."""

STRINGS: dict[str, dict[str, str]] = {
    "pages.title": {"en": "SGLang's token pool: {n} pages, {free} free, {used} used, {cached} cached",
                    "zh": "SGLang 的 token 池：{n} 页，空闲 {free}，使用中 {used}，已缓存 {cached}"},
    "pages.note": {"en": "{n} pages a row; used = held by a running request, cached = in the tree only (evictable)",
                   "zh": "每行 {n} 页；使用中 = 运行中的请求持有，已缓存 = 只在树中（可逐出）"},
    "pages.run": {"en": "pages {first}–{last}: {state} ({n})", "zh": "第 {first}–{last} 页：{state}（{n} 页）"},
    "pages.more": {"en": "{n} more runs of pages not drawn (max_runs={cap})",
                   "en.one": "1 more run of pages not drawn (max_runs={cap})",
                   "zh": "另有 {n} 段页未画出（max_runs={cap}）"},
    "pages.free": {"en": "free", "zh": "空闲"},
    "pages.used": {"en": "used", "zh": "使用中"},
    "pages.cached": {"en": "cached", "zh": "已缓存"},

    "after.request": {"en": "After request {label} ({n} prompt tokens), each served alone:",
                      "en.one": "After request {label} (1 prompt token), each served alone:",
                      "zh": "请求 {label}（{n} 个提示 token）之后，每个请求单独服务："},
    "after.design": {"en": "{design}: hit {hit}, recomputed {recompute}, evicted {evict} cached tokens",
                     "zh": "{design}：命中 {hit}，重算 {recompute}，逐出 {evict} 个已缓存 token"},
    "after.same": {"en": "Both designs hit the same {n} prompt tokens.",
                   "en.one": "Both designs hit the same 1 prompt token.",
                   "zh": "两种设计命中的提示 token 相同：{n} 个。"},
    "after.differs": {"en": "Prompt tokens {lo}–{last} (“{text}”): {more} hit them, {less} recomputed them.",
                      "zh": "提示 token {lo}–{last}（“{text}”）：{more} 命中，{less} 重算。"},
    "after.mark.hit": {"en": "hit", "zh": "命中"},
    "after.mark.recomputed": {"en": "recomputed", "zh": "重算"},
    "after.mark.generated": {"en": "generated", "zh": "生成"},
    "after.mark.differs": {"en": "one design hit, the other recomputed", "zh": "一种设计命中，另一种重算"},

    "designs.view.request": {"en": "request", "zh": "请求"},
    "designs.view.previous": {"en": "previous request", "zh": "上一个请求"},
    "designs.view.next": {"en": "next request", "zh": "下一个请求"},
}
