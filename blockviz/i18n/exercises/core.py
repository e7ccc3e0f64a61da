"""Strings of blockviz/exercises/core.py: the checker's verdicts."""

STRINGS: dict[str, dict[str, str]] = {
    "ex.check.correct": {"en": "✓ Correct.", "zh": "✓ 正确。"},
    "ex.check.wrong": {
        "en": "✗ Not quite. Check each step again, or ask for a hint.",
        "zh": "✗ 还不对。请逐步再检查一遍，或请求提示。"},
    "ex.check.try_again": {"en": "Try again.", "zh": "再试一次。"},
    "ex.check.or": {"en": "Or: {why}", "zh": "也可能是：{why}"},
    "ex.check.none_right": {
        "en": "None of the entries is right yet. Go through the first one step by step, or ask for a hint.",
        "zh": "目前没有一项是对的。先一步一步算第一项，或请求提示。"},
}
