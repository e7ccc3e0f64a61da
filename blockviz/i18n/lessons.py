"""Interface strings of the lessons' helpers (blockviz/lessons/)."""

STRINGS: dict[str, dict[str, str]] = {
    "lesson.time": {"en": "**This lesson** ≈ {total} min (reading ≈ {reading}, working it through ≈ {doing})",
                    "zh": "**本课** ≈ {total} 分钟（阅读 ≈ {reading}，动手 ≈ {doing}）"},
    "lesson.practice": {"en": "**More practice afterwards (optional)** {low}–{high} min",
                        "zh": "**课后练习另需（可选）** {low}–{high} 分钟"},
    "lesson.practice_set": {"en": " ([the practice set]({href}))", "zh": "（[练习集]({href})）"},
    "lesson.estimate": {"en": "How these times are estimated", "zh": "这些时间是怎么估出来的"},
    "lesson.estimate.reading": {
        "en": "Reading ≈ {minutes} min: the page's prose ({words} words at {wpm} a minute) and the code left "
              "open ({code} lines at {lpm} a minute).",
        "zh": "阅读 ≈ {minutes} 分钟：本页的文字（{han} 个汉字，每分钟 {hpm} 个；另有 {words} 个英文词，"
              "每分钟 {wpm} 个）和展开的代码（{code} 行，每分钟 {lpm} 行）。"},
    "lesson.estimate.doing": {"en": "Working it through ≈ {minutes} min: {items}", "zh": "动手 ≈ {minutes} 分钟：{items}"},
    "lesson.estimate.item": {"en": "{n} × {what} ({each} min each)", "zh": "{what} {n} 个（每个 {each} 分钟）"},
    "lesson.estimate.end": {"en": ". Counted in this page's cells; the author's estimate of the practice set "
                                  "comes on top.",
                            "zh": "。这些都从本页的单元格中数出；课后练习集的时间是作者另行估计的。"},
    "lesson.list_sep": {"en": ", ", "zh": "，"},
    "lesson.retrieval.title": {"en": "Before you start: from earlier lessons", "zh": "开始之前：回顾前面的课"},
    "lesson.retrieval.intro": {
        "en": "Bring back what this lesson builds on: {n} questions from {lessons}. Each is checked, not graded: "
              "nothing is recorded, and one that does not come back tells you which lesson to reopen.",
        "zh": "先找回本课要用到的内容：{n} 道题，出自{lessons}。每道题都会核对，但不计分，也不记录；"
              "想不起来的那道题告诉你该回看哪一课。"},
    "lesson.retrieval.from": {"en": "From {lesson}.", "zh": "出自{lesson}。"},
    "lesson.review.none": {
        "en": "No self-assessment is saved on this computer yet ({path}), so the review asks each kind once, "
              "{total} questions, lessons interleaved. Rate yourself at the end of each lesson and this review "
              "gives the lessons you rate weakest more of its questions.",
        "zh": "这台电脑上还没有保存过自我评估（{path}），所以复习把每种题各出一次，共 {total} 道，各课交错。"
              "在每课结束时给自己评个级，这组复习就会把更多的题留给你评得最弱的那几课。"},
    "lesson.review.weighted": {
        "en": "Weighted by your self-assessment ({path}, the latest saved for each lesson): of the {total} "
              "questions, the lessons you rated weakest get more, and come first.",
        "zh": "按你的自我评估加权（{path}，每课取最近保存的一次）：{total} 道题里，你评得最弱的课分到的题更多，也排在前面。"},
    "lesson.review.header": {"en": "| lesson | your rating | questions |", "zh": "| 课 | 你的评级 | 题数 |"},
    "lesson.review.unrated": {"en": "not rated", "zh": "未评"},
    "lesson.activity.question": {"en": "question", "zh": "题目"},
    "lesson.activity.whole_run": {"en": "whole run to predict, a row per step", "zh": "整段运行的逐步预测（每步一行）"},
    "lesson.activity.prediction": {"en": "answer to write down before opening it", "zh": "先写答案再展开的预测"},
    "lesson.activity.experiment": {"en": "change-a-variable experiment", "zh": "改变变量的实验"},
    "lesson.activity.live_view": {"en": "live view to step through", "zh": "可逐步浏览的实时视图"},
    "lesson.activity.picture": {"en": "picture of one step", "zh": "单步视图"},
    "lesson.activity.source": {"en": "source excerpt", "zh": "源码片段"},
    "lesson.activity.recall": {"en": "closed-book question", "zh": "闭卷问题"},
    "lesson.activity.self_assessment": {"en": "self-assessment", "zh": "自评"},
    "lesson.activity.retrieval": {"en": "opening retrieval (questions from earlier lessons)", "zh": "开头的回顾（前面几课的题）"},
    "lesson.prereq": {"en": "**Prerequisites**: {lessons}", "zh": "**前置**：{lessons}"},
    "lesson.none": {"en": "none", "zh": "无"},
    "lesson.reveal": {"en": "The engine's answer: open it once you have written yours",
                      "zh": "引擎的答案：先写下你的答案，再展开"},
    "lesson.levels": {"en": "not yet|with notes|closed book", "zh": "还不会|看笔记能做|闭卷能做"},
    "lesson.save": {"en": "Save on this computer", "zh": "保存在本机"},
    "lesson.saved": {"en": "Saved to {path} (never sent anywhere).", "zh": "已保存到 {path}（不会发送到任何地方）。"},
    "lesson.step": {"en": "step", "zh": "步"},
    "lesson.source_lines": {"en": "lines {first}–{last}", "zh": "第 {first}–{last} 行"},
    "lesson.col.label": {"en": "request", "zh": "请求"},
    "lesson.col.row": {"en": "packed row", "zh": "打包行号"},
    "lesson.col.position": {"en": "position t (RoPE)", "zh": "位置 t（RoPE）"},
    "lesson.col.token_id": {"en": "token id", "zh": "token id"},
    "lesson.col.logical": {"en": "logical block t // B", "zh": "逻辑块 t // B"},
    "lesson.col.offset": {"en": "offset t % B", "zh": "块内偏移 t % B"},
    "lesson.col.physical": {"en": "physical block", "zh": "物理块"},
    "lesson.col.slot": {"en": "slot", "zh": "槽位 slot"},
    "lesson.col.block": {"en": "block", "zh": "块"},
    "lesson.col.in_free": {"en": "in free queue?", "zh": "在空闲队列？"},
    "lesson.col.hash": {"en": "hash", "zh": "hash"},
    "lesson.col.map": {"en": "map[hash] →", "zh": "map[hash] →"},
    "lesson.col.ref": {"en": "ref_count", "zh": "ref_count"},
    "lesson.col.state": {"en": "state", "zh": "状态"},
    "lesson.col.holders": {"en": "block tables", "zh": "所在块表"},
    "lesson.col.tokens": {"en": "tokens", "zh": "token"},
    "lesson.col.index": {"en": "logical block", "zh": "逻辑块"},
    "lesson.col.outcome": {"en": "can_allocate found", "zh": "can_allocate 的结果"},
    "lesson.col.found": {"en": "map → block", "zh": "映射 → 块"},
    "lesson.yes": {"en": "yes", "zh": "是"},
    "lesson.no": {"en": "no", "zh": "否"},
    # the contiguous-versus-paged figures (blockviz/lessons/figures.py)
    "fig.used": {"en": "K/V computed", "zh": "已算出 K/V"},
    "fig.reserved": {"en": "reserved, not used", "zh": "预留但未用"},
    "fig.free": {"en": "not reserved", "zh": "未分配"},
    "fig.slot": {"en": "slot", "zh": "槽位"},
    "fig.step": {"en": "step", "zh": "步"},
    "fig.slots": {"en": "slots", "zh": "槽位数"},
    "fig.requests": {"en": "requests holding memory", "zh": "占着显存的请求数"},
    "fig.contiguous": {"en": "contiguous, max_model_len each", "zh": "连续预留（每个请求 max_model_len）"},
    "fig.paged": {"en": "paged blocks (nano-vllm)", "zh": "分页块（nano-vllm）"},
    "fig.reserved_line": {"en": "reserved", "zh": "预留"},
    "fig.used_line": {"en": "used", "zh": "实际使用"},
    "fig.series": {"en": "{policy}: {measure}", "zh": "{policy}：{measure}"},
}
