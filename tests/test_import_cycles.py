"""blockviz's modules import one another one way: no import cycle, not even through an import inside
a function or one made only for type checkers (either would hide a loop instead of breaking it)."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "blockviz"


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(root: Path) -> dict[str, Path]:
    return {module_name(path, root): path for path in sorted((root / "blockviz").rglob("*.py"))}


def imported(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that `name` (at `path`) imports anywhere in its text: the most specific
    module each import names (`from a.b import c` is a.b.c when that is a module, else a.b)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        found |= {t for t in targets if t in known and t != name}
    return found


def graph(root: Path) -> dict[str, set[str]]:
    found = modules(root)
    return {name: imported(name, path, set(found)) for name, path in found.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm), each sorted."""
    index, low, stack, on_stack, components = {}, {}, [], set(), []

    def visit(v: str):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(components)


def test_no_import_cycle_among_blockviz_modules():
    found = cycles(graph(ROOT))
    assert found == [], "modules that import one another (in a cycle): " + "; ".join(" <-> ".join(c) for c in found)


def test_the_check_sees_a_deferred_and_a_type_only_cycle(tmp_path):
    # the check's own reference: a function-level import and a TYPE_CHECKING one close two loops
    package = tmp_path / "blockviz"
    (package / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "a.py": "from blockviz import b\n",
        "b.py": "def f():\n    from blockviz.a import x\n",
        "sub/__init__.py": "",
        "sub/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import d\n",
        "sub/d.py": "from blockviz.sub.c import y\nfrom blockviz import a\n",
        "e.py": "import blockviz.sub.d\n",
    }
    for name, text in files.items():
        (package / name).write_text(text)
    edges = graph(tmp_path)
    assert edges["blockviz.e"] == {"blockviz.sub.d"} and edges["blockviz.sub.c"] == {"blockviz.sub.d"}
    assert cycles(edges) == [["blockviz.a", "blockviz.b"], ["blockviz.sub.c", "blockviz.sub.d"]]
