"""Interface strings of the traffic view (views/render_traffic.py, views/traffic_view.py)."""

STRINGS: dict[str, dict[str, str]] = {
    "traffic.arrivals.title": {"en": "{name}: {n} requests arriving, per {bin} s",
                               "zh": "{name}：到达的 {n} 个请求，每 {bin} 秒"},
    "traffic.prompts.title": {"en": "prompt lengths: {n} requests, mean {mean} tokens, longest {longest}",
                              "zh": "提示长度：{n} 个请求，平均 {mean} 个 token，最长 {longest} 个"},
    "traffic.hits.title": {"en": "hit rate of the requests arriving per {bin} s: {rate} overall "
                                 "({policy}, pool of {pool} tokens)",
                           "zh": "每 {bin} 秒到达的请求的命中率：总计 {rate}（{policy}，池子 {pool} 个 token）"},
    "traffic.hits.best": {"en": "an infinite cache would serve {rate} of this trace's prompt tokens",
                          "zh": "无限大的缓存能服务这份记录提示 token 的 {rate}"},
    "traffic.seconds": {"en": "seconds since the first arrival", "zh": "距第一个请求到达的秒数"},
    "traffic.requests": {"en": "requests", "zh": "请求数"},
    "traffic.prompt_tokens": {"en": "prompt tokens", "zh": "提示 token 数"},
    "traffic.hit_rate": {"en": "hit rate", "zh": "命中率"},
    "traffic.tree.title": {"en": "{name}: shared prefixes of {requests} requests, {n} hash ids drawn in {cells} cells "
                                 "(a cell: a run of ids the same requests share)",
                           "zh": "{name}：{requests} 个请求共享的前缀，{n} 个 hash id 画成 {cells} 格"
                                 "（一格：被同一批请求共享的一串 id）"},
    "traffic.tree.folded": {"en": "not drawn: {single} ids used by one request only (folded), {capped} shared ids "
                                  "less shared than those drawn (capped)",
                            "zh": "未画出：只被一个请求用到的 {single} 个 id（已折叠），以及共享次数少于已画出者的 "
                                  "{capped} 个 id（超出上限）"},
    "traffic.forest.source": {"en": "{source} · cells: {n}", "zh": "{source} · 格数：{n}"},
    "traffic.forest.empty": {"en": "no hash id is shared by two requests", "zh": "没有被两个请求共享的 hash id"},
    "traffic.forest.left_out": {"en": "shared ids not drawn: {n}", "zh": "未画出的共享 id：{n}"},
    "traffic.forest.cell.cached": {"en": "hash ids {hash} ({n}: {tokens}): first in request {step}, used by "
                                         "{copies} requests",
                                   "zh": "hash id {hash}（{n} 个：{tokens}）：首次出现在请求 {step}，被 {copies} 个请求用到"},
    "traffic.forest.cell.meta": {"en": "request {step} · {n} ids", "en.one": "request {step} · 1 id",
                                 "zh": "请求 {step} · {n} 个 id"},
}
