"""Interface strings of the classroom demo (blockviz/demo/)."""

STRINGS: dict[str, dict[str, str]] = {
    "demo.title": {"en": "blockviz classroom demo: a real model serving many requests",
                   "zh": "blockviz 课堂演示:一个真实模型同时服务多个请求"},
    "demo.setup": {"en": "model “{model}” on {device} · pool {blocks} blocks × {B} tokens ({kv}) · "
                         "{requests} requests share a {system}-token system prompt",
                   "zh": "模型“{model}”,运行于 {device} · 块池 {blocks} 块 × 每块 {B} token({kv})· "
                         "{requests} 个请求共享 {system} 个token的系统提示"},
    "demo.system": {"en": "system prompt", "zh": "系统提示"},
    "demo.generate": {"en": "▶ Generate", "zh": "▶ 开始生成"},
    "demo.pause": {"en": "❚❚ Pause", "zh": "❚❚ 暂停"},
    "demo.generate.tip": {"en": "run the engine live; the views refresh a few times a second",
                          "zh": "实时运行引擎;视图每秒刷新几次"},
    "demo.pace": {"en": "pace", "zh": "速度"},
    "demo.pace.n": {"en": "{n} steps/s", "zh": "每秒 {n} 步"},
    "demo.pace.max": {"en": "as fast as it goes", "zh": "全速"},
    "demo.stats": {"en": "step {step} · {tokens} tokens generated · {rate} tok/s · running {running} · "
                         "waiting {waiting} · finished {finished} · views {views} ms per refresh",
                   "zh": "第{step}步 · 已生成 {tokens} 个token · {rate} token/秒 · 运行 {running} · "
                         "等待 {waiting} · 完成 {finished} · 视图每次刷新 {views} 毫秒"},
    "demo.prompt": {"en": "type a prompt, then Add request", "zh": "输入提示,然后点“添加请求”"},
    "demo.after_system": {"en": "after the system prompt", "zh": "接在系统提示之后"},
    "demo.max_tokens": {"en": "max tokens", "zh": "最多生成"},
    "demo.add": {"en": "Add request", "zh": "添加请求"},
    "demo.added": {"en": "request {label} added: {tokens} prompt tokens; it starts at the next step",
                   "zh": "已添加请求 {label}:提示共 {tokens} 个token;下一步开始运行"},
    "demo.empty": {"en": "type a prompt first", "zh": "请先输入提示"},
    "demo.rejected": {"en": "not added: {reason}", "zh": "未添加:{reason}"},
    "demo.error": {"en": "the engine stopped: {reason}", "zh": "引擎已停止:{reason}"},
    "demo.paused_by_hand": {"en": "paused: you moved to another step (▶ Generate goes on from the newest step)",
                            "zh": "已暂停:你切换到了其他步(▶ 开始生成 会从最新一步继续)"},
    "demo.requests": {"en": "requests at this step", "zh": "本步的请求"},
    "demo.col.request": {"en": "request", "zh": "请求"},
    "demo.col.status": {"en": "status", "zh": "状态"},
    "demo.col.tokens": {"en": "prompt / num_cached_tokens / generated", "zh": "提示 / num_cached_tokens / 已生成"},
    "demo.col.blocks": {"en": "block table", "zh": "block_table"},
    "demo.col.text": {"en": "prompt … generated text", "zh": "提示 … 生成的文本"},
    "demo.status.waiting": {"en": "waiting", "zh": "等待"},
    "demo.status.running": {"en": "running", "zh": "运行"},
    "demo.status.finished": {"en": "finished", "zh": "完成"},
    "demo.status.arriving": {"en": "arrives next step", "zh": "下一步到达"},
    "demo.hidden": {"en": "… and {n} earlier finished requests", "zh": "…… 以及更早完成的 {n} 个请求"},
    "demo.none": {"en": "no request yet: type a prompt and press Add request", "zh": "还没有请求:输入提示并点“添加请求”"},
    "demo.notebook.title": {"en": "# blockviz classroom demo", "zh": "# blockviz 课堂演示"},
    "demo.notebook.help": {
        "en": "The dashboard below starts by itself. If it does not, choose **Run ▸ Run All Cells**.\n\n"
              "Press **▶ Generate**: requests arrive one after another, all sharing the system prompt; watch "
              "the block pool fill, share, free, evict and preempt. Type a prompt and press **Add request** "
              "to add your own. Pause, then step back with ◀ to see why a block is in its state.",
        "zh": "下面的仪表盘会自动启动;如果没有,请选择 **Run ▸ Run All Cells**。\n\n"
              "点击 **▶ 开始生成**:请求陆续到达,它们共享同一段系统提示;观察块池如何分配、共享、释放、"
              "驱逐和抢占。输入提示并点击 **添加请求** 来加入你自己的请求。暂停后用 ◀ 回退,看看每个块为何处于当前状态。"},
}
