"""Shared by the lesson tests: where the sources and notebooks are, and how to read them."""
import ast
import re
import sys
from pathlib import Path

import jupytext

from blockviz.lessons.bilingual import LANG_LINE, LANGS, cells_for

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import build_notebooks  # noqa: E402

SOURCES = build_notebooks.sources(ROOT)
NAMES = [p.stem for p in SOURCES]
VARIANTS = [(source, lang) for source in SOURCES for lang in LANGS]  # (lesson source, a notebook's language)
NOTEBOOKS = [build_notebooks.target(source, lang, ROOT) for source, lang in VARIANTS]


def variant_id(variant) -> str:
    source, lang = variant
    return f"{lang}/{source.stem}"


def read(source: Path):
    return jupytext.read(source, fmt="md:myst")


def code_cells(source: Path, lang: str) -> list[str]:
    """The code cells as the `lang` notebook shows them."""
    return [c.source for c in cells_for(read(source), lang) if c.cell_type == "code"]


def markdown_cells(source: Path, lang: str) -> list[str]:
    return [c.source for c in cells_for(read(source), lang) if c.cell_type == "markdown"]


# Digits a lesson's prose may contain: identifiers, not quantities.
ALLOWED = [
    r"(?s)```.*?```",                             # fenced code
    r"`[^`]*`",                                   # inline code
    r"(?m)^\s*\d+\.(?=\s)",                         # numbered list items
    r"\$[^$]*\$",                                 # inline maths
    r"\]\([^)]*\)",                               # link targets
    r"<code>.*?</code>",
    r"#\d+",                                      # nano-vllm issue numbers
    r"\b(?:seed|Seed)\s?\d{3}\b", r"种子\s?\d{3}",  # the seed documents
    r"\bQ\d\b",                                   # seed 000's questions
    r"(?<![\d.])0\d(?![\d.])",                    # lesson numbers 00..09
    r"\b[vV]\d\b",                                # vLLM V1, block manager v2
    r"Qwen\d", r"xxh64", r"int64", r"\bH\d{3}\b", r"\btwo-phase\b",
]
NUMBER_WORDS = re.compile(r"\b(zero|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                          r"twice|half|dozen|hundred|thousand)\b", re.I)


def typed_numbers(text: str) -> list[str]:
    """Digits (and English number words) left in prose once the allowed identifiers are removed."""
    for pattern in ALLOWED:
        text = re.sub(pattern, " ", text)
    found = re.findall(r"[^\s]*\d[^\s]*", text)
    found += [m.group(0) for m in NUMBER_WORDS.finditer(text)]
    return found


PROSE_CALLS = {"say", "reveal", "exercise", "text"}


def prose_literals(code: str) -> list[str]:
    """The literal text parts of the strings passed to say/reveal/exercise/text calls in a code cell."""
    out = []
    for node in ast.walk(ast.parse(code)):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if name not in PROSE_CALLS:
            continue
        # hint= names the question's hint in blockviz/i18n/lesson_hints.py: a key, not prose (its texts are checked
        # in test_exercise_texts.py)
        for arg in list(node.args) + [k.value for k in node.keywords if k.arg != "hint"]:
            parts_of_fstrings = {id(n) for f in ast.walk(arg)                      # {x:016x}: not prose
                                 if isinstance(f, ast.FormattedValue) and f.format_spec is not None
                                 for n in ast.walk(f.format_spec)}
            for sub in ast.walk(arg):
                if id(sub) in parts_of_fstrings:
                    continue
                if isinstance(sub, ast.JoinedStr):  # an f-string: its text with every {…} as a marker
                    parts_of_fstrings.update(id(v) for v in sub.values)
                    out.append("".join(v.value if isinstance(v, ast.Constant) else "{…}" for v in sub.values))
                elif isinstance(sub, ast.Constant) and isinstance(sub.value, str) and id(sub) not in parts_of_fstrings:
                    out.append(sub.value)
    return out
