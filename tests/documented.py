"""The command lines README.md and the lessons show, read one way by every test that runs them."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def command_lines(name: str, program: str = "blockviz", indent: str = "    ") -> list[str]:
    """The lines of `name` (a path from the repository root) that are `indent` then `program`: an indented
    code line in Markdown, or (indent "") a line of a fenced block. Each as written, its `# comment` cut off."""
    text = (ROOT / name).read_text(encoding="utf-8")
    lines = re.findall(rf"^{indent}({re.escape(program)}(?: [^\n]*)?)$", text, flags=re.M)
    return list(dict.fromkeys(re.sub(r"\s+#.*$", "", line).rstrip() for line in lines))


def code_lines(name: str) -> list[str]:
    """Every line of `name`'s indented code blocks (four spaces, after a blank line, outside fenced
    blocks), as written, its `# comment` cut off: the commands a reader copies, and the output shown."""
    lines, fenced, in_block, previous_blank = [], False, False, True
    for line in (ROOT / name).read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced, in_block = not fenced, False
        elif not fenced:
            in_block = line.startswith("    ") and (in_block or previous_blank)
            if in_block and line.strip():
                lines.append(re.sub(r"\s+#.*$", "", line.strip()).rstrip())
        previous_blank = not line.strip()
    return list(dict.fromkeys(lines))


INLINE_PROGRAMS = ("blockviz ", "bash scripts/")


def inline_commands(name: str) -> list[str]:
    """The commands `name` shows in backquotes inside its prose (`blockviz ...`, `bash scripts/...`),
    a line break inside the quotes read as a space, as a reader would type them."""
    text = (ROOT / name).read_text(encoding="utf-8")
    quoted = (" ".join(q.split()) for q in re.findall(r"(?<!`)`([^`]+)`(?!`)", text))
    return list(dict.fromkeys(q for q in quoted if q.startswith(INLINE_PROGRAMS)))
