"""One lesson source, two notebooks: what of a bilingual source lesson/NAME.md each language keeps.

A source's markdown cells carry `+++ {"lang": "en"}` or `+++ {"lang": "zh"}` (an untagged one is
in both notebooks); its code cells are shared, and each language's notebook gets them with
- the line `LANG = "en"` set to its language,
- comments tagged `#[en] ...` / `#[zh] ...` (a line may carry both) reduced to its language's,
- the other language's `en=` / `zh=` keyword argument removed, so a computed sentence
  `say(en=..., zh=...)` reads `say(zh=...)` in the Chinese notebook. (An exercise keeps both
  languages, `question_en=` and `question_zh=`: it can be shown, printed or checked in either.)
"""
from __future__ import annotations

import ast
import copy
import re
from pathlib import Path

import jupytext

from blockviz.i18n import LANGS

ANY_LANG = "|".join(LANGS)
LANG_LINE = re.compile(rf'^LANG = "({ANY_LANG})"$', re.M)
COMMENT_TAG = re.compile(rf"\s*#\[({ANY_LANG})\] ?")


def other(lang: str) -> str:
    return "zh" if lang == "en" else "en"


def keeps(cell, lang: str) -> bool:
    return cell.cell_type == "code" or cell.metadata.get("lang", lang) == lang


def code_for(code: str, lang: str) -> str:
    """A shared code cell as the `lang` notebook shows it."""
    code = LANG_LINE.sub(f'LANG = "{lang}"', code)
    code = "\n".join(line for line in (_comment_for(line, lang) for line in code.split("\n")) if line is not None)
    return _drop_keywords(code, other(lang))


def _comment_for(line: str, lang: str) -> str | None:
    """The line with only `lang`'s tagged comment; None for a comment line that has none for it."""
    parts = COMMENT_TAG.split(line)
    if len(parts) == 1:
        return line
    code, tagged = parts[0], dict(zip(parts[1::2], parts[2::2]))
    text = tagged.get(lang, "").rstrip()
    if code.strip():
        return f"{code.rstrip()}  # {text}" if text else code.rstrip()
    indent = line[:len(line) - len(line.lstrip())]
    return f"{indent}# {text}" if text else None


def _drop_keywords(code: str, lang: str) -> str:
    """`code` without the keyword arguments named `lang`."""
    try:
        tree = ast.parse(code)
    except SyntaxError:  # IPython magics and the like: left as they are
        return code
    data = code.encode("utf-8")  # ast's column offsets count UTF-8 bytes
    starts = [0]
    for line in data.split(b"\n"):
        starts.append(starts[-1] + len(line) + 1)

    def at(line: int, col: int) -> int:
        return starts[line - 1] + col

    spans = []
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        parts = sorted(call.args + call.keywords, key=lambda n: (n.lineno, n.col_offset))
        gone = [isinstance(p, ast.keyword) and p.arg == lang for p in parts]
        for i, part in enumerate(parts):
            if not gone[i]:
                continue
            start, end = at(part.lineno, part.col_offset), at(part.end_lineno, part.end_col_offset)
            if i + 1 < len(parts):       # up to the next argument: takes the comma after it
                spans.append((start, at(parts[i + 1].lineno, parts[i + 1].col_offset)))
            elif i > 0:                  # the last argument: from the end of the one before
                before = parts[i - 1]
                spans.append((at(before.end_lineno, before.end_col_offset), end))
            else:
                spans.append((start, end))
    for start, end in sorted(_merged(spans), reverse=True):
        data = data[:start] + data[end:]
    return data.decode("utf-8")


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def cells_for(nb, lang: str) -> list:
    """The cells of the `lang` notebook, in order, their sources in `lang`."""
    out = []
    for cell in nb.cells:
        if not keeps(cell, lang):
            continue
        cell = copy.deepcopy(cell)
        cell.metadata = {k: v for k, v in cell.metadata.items() if k != "lang"}
        if cell.cell_type == "code":
            cell.source = code_for(cell.source, lang)
        out.append(cell)
    return out


def unpaired_prose(nb) -> list[str]:
    """Where a source's prose is not in both languages: between two code cells, its tagged markdown
    cells must alternate en, zh, en, zh, ... (each English cell followed by its Chinese one)."""
    problems, run = [], []

    def close():
        langs = [c.metadata.get("lang") for c in run]
        if langs != [LANGS[i % 2] for i in range(len(langs))] or len(langs) % 2:
            first = run[0].source.strip().splitlines()[0][:60] if run[0].source.strip() else ""
            problems.append(f"prose cells {langs} before {first!r}: expected en, zh pairs")
        run.clear()

    for cell in nb.cells:
        if cell.cell_type == "markdown" and "lang" in cell.metadata:
            run.append(cell)
        elif run:
            close()
    if run:
        close()
    return problems


SAID = {"say", "reveal"}


def calls_in(code: str) -> list[tuple[str, ast.Call]]:
    """(name, call) of every call in a code cell: `L.say(...)` is named "say" (none for a cell that
    is not plain Python, such as one with IPython magics)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    return [(call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", ""), call)
            for call in ast.walk(tree) if isinstance(call, ast.Call)]


def prose_of(source: Path, lang: str) -> list[str]:
    """The prose a learner reads in the `lang` notebook: its markdown cells and the literal text of
    the say()/reveal() calls in its code."""
    out = []
    for cell in cells_for(jupytext.read(source, fmt="md:myst"), lang):
        if cell.cell_type == "markdown":
            out.append(cell.source)
            continue
        for name, call in calls_in(cell.source):
            if name in SAID:
                out += [n.value for n in ast.walk(call) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return out
