"""Strings of the `blockviz exercise` command (blockviz/commands/exercise.py): the terminal front end."""

STRINGS: dict[str, dict[str, str]] = {
    "ex.cli.usage": {
        "en": "Type your answer, or: hint, solution, quit.",
        "zh": "输入答案，或输入：提示、答案、退出（也可用 hint、solution、quit）。"},
    "ex.cli.rows": {
        "en": "This answer is a table: type one row a line, then an empty line to check it.",
        "zh": "这道题的答案是一张表：每行输入一行，最后输入一个空行来核对。"},
    "ex.cli.bye": {"en": "Bye.", "zh": "再见。"},
    "ex.cli.next": {"en": "Next exercise:", "zh": "下一题："},
}
