"""Strings of blockviz/exercises/widget.py: the notebook widget."""

STRINGS: dict[str, dict[str, str]] = {
    "ex.ui.check": {"en": "Check", "zh": "核对"},
    "ex.ui.hint": {"en": "Hint", "zh": "提示"},
    "ex.ui.solution": {"en": "Show solution", "zh": "显示解答"},
    "ex.ui.placeholder": {"en": "your answer", "zh": "你的答案"},
}
