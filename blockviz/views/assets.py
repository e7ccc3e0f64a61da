"""The widgets' front-end files (js/): ES modules and one stylesheet, each tested on its own.

anywidget loads a widget's module from a string, where relative imports cannot resolve, so
`module` joins a widget's file with the files it imports, in order, dropping those import lines.
A widget whose file imports nothing (fleet.js, vllm_watch.js) gives anywidget the file's path
instead: anywidget reads it, and with ANYWIDGET_HMR=1 (and watchfiles) reloads it as it is edited.
A plain page (the classroom's class page) imports the same files by URL.
"""
import re
from pathlib import Path

JS = Path(__file__).resolve().parent / "js"
STYLES = JS / "views.css"
RELATIVE_IMPORT = re.compile(r'^import \{[^}]*\} from "\./([\w.]+)";\n', re.MULTILINE)


def module(*names: str) -> str:
    """One ES module of the files `names` (in js/), each after the files it imports."""
    parts, seen = [], set()
    for name in names:
        source = (JS / name).read_text(encoding="utf-8")
        for imported in RELATIVE_IMPORT.findall(source):
            if imported not in seen:
                raise ValueError(f"{name} imports {imported}: list it before {name}")
        parts.append(RELATIVE_IMPORT.sub("", source))
        seen.add(name)
    return "\n".join(parts)
