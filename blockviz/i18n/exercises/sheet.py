"""Strings of blockviz/exercises/sheet.py: the teacher's sheet."""

STRINGS: dict[str, dict[str, str]] = {
    "ex.sheet.title": {"en": "blockviz exercise sheet", "zh": "blockviz 练习单"},
    "ex.sheet.intro": {
        "en": "Compute by hand first. Each exercise has an id; `blockviz exercise ID` opens it with checking and hints.",
        "zh": "先手算。每道题都有编号；`blockviz exercise 编号` 可打开它并自动核对、给提示。"},
    "ex.sheet.answer_line": {"en": "Your answer: ______________________", "zh": "你的答案：______________________"},
    "ex.sheet.key": {"en": "Answer key", "zh": "答案"},
    "ex.sheet.answer": {"en": "Answer", "zh": "答案"},
    "ex.sheet.working": {"en": "Working", "zh": "推导"},
}
