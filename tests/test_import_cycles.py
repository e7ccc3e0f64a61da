"""blockviz's modules import one another one way: no import cycle, not even through an import inside
a function or one made only for type checkers (either would hide a loop instead of breaking it), and
none through a package's __init__, which Python runs before the module asked for.

Folders too: inside each package, its files and sub-folders (each sub-folder taken whole) import one
another one way, so that every folder is a floor and no arrow points back up."""
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


def packages_above(name: str) -> list[str]:
    """a.b.c -> [a, a.b]: the packages whose __init__ runs before a.b.c does."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def with_inits(name: str, targets: set[str], known: set[str]) -> set[str]:
    """What importing `targets` from `name` runs: each target and, first, every package above it that
    `name` is not itself inside (those are already running when `name` runs)."""
    mine = set(packages_above(name))
    return targets | {p for t in targets for p in packages_above(t) if p in known and p not in mine and p != name}


def graph(root: Path) -> dict[str, set[str]]:
    found = modules(root)
    known = set(found)
    return {name: with_inits(name, imported(name, path, known), known) for name, path in found.items()}


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


def child(package: str, module: str) -> str | None:
    """The child of `package` that holds `module`: a file or a whole sub-folder (`package` itself for
    its own __init__); None outside `package`."""
    if module == package:
        return package
    if not module.startswith(package + "."):
        return None
    return package + "." + module[len(package) + 1:].split(".")[0]


def folder_edges(edges: dict[str, set[str]], package: str) -> dict[str, dict[str, set[str]]]:
    """The imports between `package`'s children: child -> child -> the module imports that make the arrow."""
    between: dict[str, dict[str, set[str]]] = {}
    for module, targets in edges.items():
        source = child(package, module)
        if source is None:
            continue
        arrows = between.setdefault(source, {})
        for target in targets:
            end = child(package, target)
            if end is not None and end != source:
                arrows.setdefault(end, set()).add(f"{module} -> {target}")
                between.setdefault(end, {})
    return between


def folder_loops(edges: dict[str, set[str]]) -> list[str]:
    """Each loop between the children of one package, with the imports that close it."""
    found = []
    for package in sorted({p for m in edges for p in packages_above(m)}):
        between = folder_edges(edges, package)
        for loop in cycles({c: set(arrows) for c, arrows in between.items()}):
            inside = set(loop)
            why = sorted(i for c in loop for end, imports in between[c].items() if end in inside for i in imports)
            found.append(f"in {package}: {' <-> '.join(loop)}, through " + "; ".join(why))
    return found


def test_no_import_cycle_among_blockviz_modules():
    found = cycles(graph(ROOT))
    assert found == [], "modules that import one another (in a cycle): " + "; ".join(" <-> ".join(c) for c in found)


def test_no_loop_between_folders():
    found = folder_loops(graph(ROOT))
    assert found == [], "folders (or files beside them) that import one another:\n" + "\n".join(found)



TOP = "blockviz.commands"   # the command line: every subcommand's parser and runner
ENTRY = {"blockviz.__main__"}  # `python -m blockviz` runs the command


def imports_of_the_top_floor(edges: dict[str, set[str]]) -> list[str]:
    """Each import of blockviz.commands (or a module in it) from outside it, but for the entry point."""
    return sorted(f"{module} -> {target}" for module, targets in edges.items()
                  if child("blockviz", module) != TOP and module not in ENTRY
                  for target in targets if child("blockviz", target) == TOP)


def test_nothing_imports_the_commands():
    # the commands are the top floor: they may import anything; what they hold is for a terminal only
    found = imports_of_the_top_floor(graph(ROOT))
    assert found == [], "modules below the commands that import them: " + "; ".join(found)

def write(root: Path, files: dict[str, str]):
    for name, text in files.items():
        path = root / "blockviz" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_the_check_sees_a_deferred_and_a_type_only_cycle(tmp_path):
    # the check's own reference: a function-level import and a TYPE_CHECKING one close two loops
    write(tmp_path, {
        "__init__.py": "",
        "a.py": "from blockviz import b\n",
        "b.py": "def f():\n    from blockviz.a import x\n",
        "sub/__init__.py": "",
        "sub/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import d\n",
        "sub/d.py": "from blockviz.sub.c import y\nfrom blockviz import a\n",
        "e.py": "import blockviz.sub.d\n",
    })
    edges = graph(tmp_path)
    assert edges["blockviz.e"] == {"blockviz.sub", "blockviz.sub.d"} and edges["blockviz.sub.c"] == {"blockviz.sub.d"}
    assert cycles(edges) == [["blockviz.a", "blockviz.b"], ["blockviz.sub.c", "blockviz.sub.d"]]


def test_the_check_sees_a_cycle_through_an_init_and_a_loop_between_folders(tmp_path):
    # the check's own reference: s imports a leaf of r, which first runs r's __init__, which imports
    # s (a module cycle no import line names); p and q import each other's folder through different
    # files, one inside a function (a loop between folders, none between modules)
    write(tmp_path, {
        "__init__.py": "",
        "r/__init__.py": "from blockviz import s\n",
        "r/leaf.py": "",
        "s.py": "from blockviz.r.leaf import x\n",
        "p/__init__.py": "",
        "p/low.py": "",
        "p/high.py": "def draw():\n    from blockviz.q import y\n",
        "q.py": "from blockviz.p.low import z\n",
        "deep/__init__.py": "",
        "deep/inner/__init__.py": "from blockviz.deep.inner import one\n",
        "deep/inner/one.py": "from blockviz.deep import two\n",
        "deep/two.py": "from blockviz.deep.inner import one\n",
    })
    edges = graph(tmp_path)
    assert edges["blockviz.s"] == {"blockviz.r", "blockviz.r.leaf"}
    assert edges["blockviz.deep.inner.one"] == {"blockviz.deep.two"}   # deep is already running
    assert cycles(edges) == [["blockviz.deep.inner", "blockviz.deep.inner.one", "blockviz.deep.two"],
                             ["blockviz.r", "blockviz.s"]]
    assert folder_loops(edges) == [
        "in blockviz: blockviz.p <-> blockviz.q, through blockviz.p.high -> blockviz.q; blockviz.q -> blockviz.p; "
        "blockviz.q -> blockviz.p.low",
        "in blockviz: blockviz.r <-> blockviz.s, through blockviz.r -> blockviz.s; blockviz.s -> blockviz.r; "
        "blockviz.s -> blockviz.r.leaf",
        "in blockviz.deep: blockviz.deep.inner <-> blockviz.deep.two, through blockviz.deep.inner.one -> "
        "blockviz.deep.two; blockviz.deep.two -> blockviz.deep.inner; blockviz.deep.two -> blockviz.deep.inner.one"]


def test_the_check_sees_an_import_of_the_commands(tmp_path):
    # the check's own reference: a view that imports a command, in a function, is an arrow up
    write(tmp_path, {
        "__init__.py": "",
        "__main__.py": "from blockviz.commands import main\n",
        "commands/__init__.py": "from blockviz import views\n",
        "commands/run.py": "from blockviz.commands import main\n",
        "views.py": "def draw():\n    from blockviz.commands.run import x\n",
    })
    assert imports_of_the_top_floor(graph(tmp_path)) == ["blockviz.views -> blockviz.commands",
                                                         "blockviz.views -> blockviz.commands.run"]
