"""Interface strings of the build-it-yourself track's checker (blockviz/diy/)."""

STRINGS: dict[str, dict[str, str]] = {
    "diy.pass": {"en": "✓ {methods}: the same as the engine's at every step of {workloads} workloads ({steps} steps).",
                   "zh": "✓ {methods}：在 {workloads} 个工作负载的每一步（共 {steps} 步）都与引擎一致。"},
    "diy.not_written": {"en": "Not written yet: {methods}. The engine's ran in their place.",
                          "zh": "还没写：{methods}。检查时由引擎的方法代替它们运行。"},
    "diy.nothing": {"en": "Nothing of this stage to check yet: write it in the cell above, run that cell, then run "
                            "this one again.",
                      "zh": "这一阶段还没有可检查的内容：先在上面的单元格里写好并运行，再运行这个单元格。"},
    "diy.fail": {"en": "✗ The first difference: workload {seed}, step {step}.",
                   "zh": "✗ 第一处不同：工作负载 {seed}，第 {step} 步。"},
    "diy.before_first": {"en": "(step 0 is the pool before the first step: your __init__ and the first requests.)",
                           "zh": "（第 0 步是第一步之前的池：你的 __init__ 和最先到达的请求。）"},
    "diy.workload": {"en": "Workload {seed}: block size {block_size}, {num_blocks} blocks, max_num_seqs {max_num_seqs}, "
                             "max_num_batched_tokens {max_num_batched_tokens}. Requests: {requests}.",
                       "zh": "工作负载 {seed}：块大小 {block_size}，共 {num_blocks} 个块，max_num_seqs 为 {max_num_seqs}，"
                             "max_num_batched_tokens 为 {max_num_batched_tokens}。请求：{requests}。"},
    "diy.request": {"en": "{label} ({tokens} prompt tokens, up to {new} new) at step {arrives}",
                      "zh": "{label}（提示 {tokens} 个 token，最多生成 {new} 个）在第 {arrives} 步到达"},
    "diy.weak_hash": {"en": "This workload swaps in a weak hash with only {values} values, so blocks with different "
                              "tokens collide (a real hash rarely does): it reaches your code through self.compute_hash.",
                        "zh": "这个工作负载换上了只有 {values} 种取值的弱 hash，于是 token 不同的块也会撞上同一个 hash"
                              "（真实的 hash 很少这样）：它经由 self.compute_hash 传给你的代码。"},
    "diy.diff.call": {"en": "{call} returned {mine} in yours, {engine} in the engine's.",
                        "zh": "{call} 在你的实现里返回 {mine}，引擎返回 {engine}。"},
    "diy.diff.calls": {"en": "The scheduler's calls into the block manager differ: {mine} in yours, {engine} in the "
                               "engine's.",
                         "zh": "调度器对块管理器的调用不同：你的是 {mine}，引擎的是 {engine}。"},
    "diy.diff.scheduled": {"en": "The scheduler chose differently: {mine} with yours, {engine} with the engine's.",
                             "zh": "调度器的选择不同：用你的实现是 {mine}，用引擎的是 {engine}。"},
    "diy.diff.failed": {"en": "The step ended differently: {mine} with yours, {engine} with the engine's.",
                          "zh": "这一步的结局不同：用你的实现是 {mine}，用引擎的是 {engine}。"},
    "diy.diff.blocks": {"en": "The pool has {mine} blocks in yours, {engine} in the engine's.",
                          "zh": "你的池有 {mine} 个块，引擎的有 {engine} 个。"},
    "diy.diff.block": {"en": "Block #{where}: {field} is {mine} in yours, {engine} in the engine's.",
                         "zh": "块 #{where}：{field} 在你的实现里是 {mine}，引擎里是 {engine}。"},
    "diy.diff.map": {"en": "hash_to_block_id[{where}] is {mine} in yours, {engine} in the engine's.",
                       "zh": "hash_to_block_id[{where}] 在你的实现里是 {mine}，引擎里是 {engine}。"},
    "diy.diff.request": {"en": "Request {where}: {field} is {mine} in yours, {engine} in the engine's.",
                           "zh": "请求 {where}：{field} 在你的实现里是 {mine}，引擎里是 {engine}。"},
    "diy.diff.whole": {"en": "{field} is {mine} in yours, {engine} in the engine's.",
                         "zh": "{field} 在你的实现里是 {mine}，引擎里是 {engine}。"},
    "diy.more": {"en": "… and {n} more differences at this step.", "zh": "……这一步还有 {n} 处不同。"},
    "diy.sep": {"en": "; ", "zh": "；"},
    "diy.list_sep": {"en": ", ", "zh": "、"},
    "diy.absent": {"en": "absent", "zh": "不存在"},
    "diy.no_call": {"en": "no call", "zh": "没有调用"},
    "diy.no_error": {"en": "no error", "zh": "没有出错"},
    "diy.nothing_scheduled": {"en": "nothing", "zh": "什么也没调度"},
    "diy.prefill": {"en": "prefill", "zh": "预填充"},
    "diy.decode": {"en": "decode", "zh": "解码"},
    "diy.fault.not_written": {"en": "Your {method} is not finished: it raised NotImplementedError at step {step}.",
                                "zh": "你的 {method} 还没写完：它在第 {step} 步抛出了 NotImplementedError。"},
    "diy.fault.raised": {"en": "Your {method} raised an exception at step {step}: {message}",
                           "zh": "你的 {method} 在第 {step} 步抛出了异常：{message}"},
    "diy.fault.too_long": {"en": "Your {method} ran more than {limit} instructions in one engine step (step {step}): an endless loop? "
                                    "It was cut there.",
                             "zh": "你的 {method} 在一个引擎步内执行了超过 {limit} 条指令（第 {step} 步）：是死循环吗？检查在这里把它截断了。"},
    "diy.fault.engine_raised": {"en": "The engine's own code failed on your block manager's state at step {step} "
                                        "(in {method}): {message}",
                                  "zh": "引擎自己的代码在第 {step} 步处理你的块管理器状态时出错（在 {method} 中）：{message}"},
    "diy.fault.timeout": {"en": "Your {method} did not return within {limit} s at step {step}: an endless loop, a sleep "
                                  "or a wait? The check stopped it there; your notebook is untouched.",
                            "zh": "你的 {method} 在第 {step} 步没有在 {limit} 秒内返回：是死循环、sleep 还是在等待？"
                                  "检查在这里停下了它，你的 notebook 不受影响。"},
    "diy.fault.ended": {"en": "Your code ended the checker's process at step {step} (in {method}): {message}. "
                                "Your notebook is untouched.",
                          "zh": "你的代码在第 {step} 步（在 {method} 中）结束了检查用的进程：{message}。你的 notebook 不受影响。"},
    "diy.fault.too_much": {"en": "What your code left at step {step} (in {method}) could not be compared: {message}",
                             "zh": "你的代码在第 {step} 步（在 {method} 中）留下的值无法比较：{message}"},
    "diy.traceback": {"en": "Where it happened", "zh": "出错的位置"},
    "diy.yours": {"en": "Yours after step {step}", "zh": "你的实现：第 {step} 步之后"},
    "diy.yours_stopped": {"en": "Yours in step {step}, where it stopped", "zh": "你的实现：第 {step} 步中停下的地方"},
    "diy.engines": {"en": "The engine's after step {step}", "zh": "引擎：第 {step} 步之后"},
    "diy.no_picture": {"en": "Your pool cannot be drawn at this step: {reason}",
                         "zh": "这一步你的池画不出来：{reason}"},
    "diy.flaky": {"en": "(Run again with pictures, your code did something else: does it depend on more than the "
                          "block manager's state?)",
                    "zh": "（带图重跑时你的代码走了另一条路：它是否依赖块管理器状态以外的东西？）"},
}
