"""Interface strings of the vLLM watch views (views/render_forest.py, views/vllm_widget.py)."""

STRINGS: dict[str, dict[str, str]] = {
    "forest.title": {"en": "vLLM prefix cache · step {step} · cached blocks: {n} · stored now: {stored} · "
                           "removed now: {removed}",
                     "zh": "vLLM前缀缓存 · 第{step}步 · 已缓存块：{n} · 本步存入：{stored} · 本步移除：{removed}"},
    "forest.cannot": {"en": "from KV events: hashes, parents and tokens; not physical block ids, ref counts or "
                            "the free queue",
                      "zh": "来自KV事件：hash、父块与token；看不到物理块号、引用计数和空闲队列"},
    "forest.cleared": {"en": "AllBlocksCleared: the whole cache was emptied at this step",
                       "zh": "AllBlocksCleared：本步清空了整个缓存"},
    "forest.source": {"en": "{source} · cached blocks: {n}", "zh": "{source} · 已缓存块：{n}"},
    "forest.empty": {"en": "nothing cached", "zh": "缓存为空"},
    "forest.left_out": {"en": "older blocks not drawn: {n}", "zh": "未画出的较早块：{n}"},
    "forest.cell.cached": {"en": "block {hash}: {n} tokens “{tokens}”, stored at step {step}, copies {copies}, "
                                 "medium {medium}",
                           "zh": "块{hash}：{n}个token“{tokens}”，第{step}步存入，副本{copies}，介质{medium}"},
    "forest.cell.stored": {"en": "block {hash}: {n} tokens “{tokens}”, stored at this step ({step}), copies "
                                 "{copies}, medium {medium}",
                           "zh": "块{hash}：{n}个token“{tokens}”，本步（第{step}步）存入，副本{copies}，介质{medium}"},
    "forest.cell.removed": {"en": "block {hash}: {n} tokens “{tokens}”, stored at step {step}, removed at this "
                                  "step (copies {copies}, medium {medium})",
                            "zh": "块{hash}：{n}个token“{tokens}”，第{step}步存入，本步被移除（副本{copies}，"
                                  "介质{medium}）"},
    "forest.cell.meta": {"en": "step {step} · {n} tok", "zh": "第{step}步 · {n}个token"},
    "evictions.title": {"en": "removed, oldest first (latest {n})", "zh": "被移除的块，从早到晚（最近{n}个）"},
    "evictions.none": {"en": "nothing removed yet", "zh": "还没有块被移除"},
    "evictions.item": {"en": "step {step} · {hash} · “{tokens}” · cached for {lived} steps",
                       "zh": "第{step}步 · {hash} · “{tokens}” · 缓存了{lived}步"},
    "counters.resident": {"en": "cached blocks: {n}", "zh": "已缓存块：{n}"},
    "counters.stored": {"en": "stored so far: {n}", "zh": "累计存入：{n}"},
    "counters.removed": {"en": "removed so far: {n}", "zh": "累计移除：{n}"},
    "counters.hit_rate": {"en": "prefix hit rate (server /metrics): {rate}", "zh": "前缀命中率（服务器/metrics）：{rate}"},
    "counters.no_hit_rate": {"en": "hit rate: no server metrics", "zh": "命中率：没有服务器指标"},
    "counters.problems": {"en": "malformed or foreign messages: {n}", "zh": "格式错误或无关的消息：{n}"},
    "counters.lost": {"en": "batches lost before this one: {n}", "zh": "此前丢失的批次：{n}"},
    "vllm.player.first": {"en": "first kept step", "zh": "最早保留的一步"},
    "vllm.player.back": {"en": "one step back", "zh": "后退一步"},
    "vllm.player.forward": {"en": "one step forward", "zh": "前进一步"},
    "vllm.player.live": {"en": "follow live", "zh": "跟随实时"},
    "vllm.player.step": {"en": "step", "zh": "步"},
    "vllm.player.window": {"en": "steps {first}–{last} kept", "zh": "保留第{first}–{last}步"},
    "vllm.player.waiting": {"en": "waiting for KV events…", "zh": "等待KV事件……"},
    "vllm.problem.last": {"en": "last problem: {reason}", "zh": "最近的问题：{reason}"},
}
