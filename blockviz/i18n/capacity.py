"""Interface strings of the capacity view (views/render_capacity.py, views/capacity_widget.py)."""

STRINGS: dict[str, dict[str, str]] = {
    "capacity.chart": {"en": "{name}: hit rate at every pool size (one pass, blocks of {B})",
                       "zh": "{name}：每种池子大小下的命中率（一遍算出，每块 {B} 个 token）"},
    "capacity.x_axis": {"en": "pool (real tokens)", "zh": "池子（真实 token）"},
    "capacity.x_axis_gib": {"en": ", KV of {model}", "zh": "，{model} 的 KV"},
    "capacity.max": {"en": "infinite cache: {rate}", "zh": "无限大的缓存：{rate}"},
    "capacity.tier": {"en": "tier", "zh": "层"},
    "capacity.tokens": {"en": "tokens", "zh": "token"},
    "capacity.gib": {"en": "memory", "zh": "内存"},
    "capacity.hit_rate": {"en": "prompt tokens it serves", "zh": "它服务的提示 token"},
    "capacity.gpu": {"en": "GPU pool", "zh": "GPU 池"},
    "capacity.cpu": {"en": "CPU pool ({mode})", "zh": "CPU 池（{mode}）"},
    "capacity.both": {"en": "both", "zh": "合计"},
    "capacity.write_through": {"en": "vLLM's offloading: every block stored", "zh": "vLLM 的卸载：每个块都存一份"},
    "capacity.victim": {"en": "victim cache: what the GPU evicts", "zh": "受害者缓存：存 GPU 逐出的块"},
    "capacity.of_max": {"en": "Together: {share} of what an infinite cache serves ({rate}).",
                        "zh": "合计：达到无限大缓存（{rate}）的 {share}。"},
    "capacity.loaded": {"en": "Loaded back from the CPU: {tokens} tokens a second of trace, {gbs} GB/s.",
                        "zh": "从 CPU 载回：按记录时间每秒 {tokens} 个 token，{gbs} GB/s。"},
    "capacity.loaded_tokens": {"en": "Loaded back from the CPU: {tokens} tokens a second of trace.",
                               "zh": "从 CPU 载回：按记录时间每秒 {tokens} 个 token。"},
    "capacity.cpu_inside": {"en": "A CPU pool that stores every block and is no larger than the GPU pool holds only "
                                  "what the GPU holds: it adds no hit.",
                            "zh": "CPU 池存下每个块，又不比 GPU 池大，它存的就只是 GPU 已有的：不增加任何命中。"},
    "capacity.model": {"en": "{model}: {bytes} bytes of KV a token.", "zh": "{model}：每个 token 的 KV 占 {bytes} 字节。"},
    "capacity.policy": {"en": "vLLM's block rules against nano-vllm's, replayed on {trace} at {pool} tokens ({gib}) "
                              "(the replayed pool nearest the GPU pool): {nano} → {vllm}, {gain} points.",
                        "zh": "在 {trace} 上以 {pool} 个 token（{gib}）回放（离 GPU 池最近的回放池子），vLLM 的块规则对比 "
                              "nano-vllm 的：{nano} → {vllm}，相差 {gain} 个百分点。"},
    "capacity.no_model": {"en": "no model given", "zh": "未给出模型"},
    "capacity.no_policy": {"en": "No replay of both policies given: the curve cannot tell them apart.",
                           "zh": "没有给出两种策略的回放：曲线分不出它们。"},
    "capacity.slider.total": {"en": "memory for KV (GPU + CPU)", "zh": "KV 的内存（GPU + CPU）"},
    "capacity.slider.split": {"en": "share on the GPU", "zh": "放在 GPU 上的比例"},
}
