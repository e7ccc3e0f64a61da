"""Strings of blockviz/exercises/question.py: a lesson's fixed question."""

STRINGS: dict[str, dict[str, str]] = {
    "question.title": {"en": "Compute first, then check", "zh": "先算，再核对"},
    "question.mistake": {"en": "{why_en}", "zh": "{why_zh}"},
    "question.partial": {
        "en": "{count} of {total} entries are right. Look again at entry {positions} (counting from 1).",
        "zh": "{total} 项里对了 {count} 项。请再看第 {positions} 项（从 1 数起）。"},
    "question.answer": {"en": "The engine computed: `{answer}`.", "zh": "引擎算出的是：`{answer}`。"},
    "question.yes": {"en": "yes", "zh": "是"},
    "question.no": {"en": "no", "zh": "否"},
}
