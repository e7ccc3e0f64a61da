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
