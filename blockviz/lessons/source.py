"""Where things are in the repository's source: the lines of a def, a line inside it, the callers of
a method. The lessons link to lines found here, never typed."""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from blockviz.course import REPO_DIR


def callers_of(path: str | Path, method: str) -> list[str]:
    """Qualified names of the functions in a file that call `.method(`."""
    tree = ast.parse((REPO_DIR / path).read_text(encoding="utf-8"))
    found = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                calls = [n for n in ast.walk(child) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                         and n.func.attr == method]
                if calls:
                    found.append(prefix + child.name)
    visit(tree, "")
    return found



def def_lines(path: str | Path, qualname: str) -> tuple[int, int]:
    """(first, last) line of `def qualname` ("Class.method" or "function") in a file of the repository."""
    file = REPO_DIR / path
    tree = ast.parse(file.read_text(encoding="utf-8"))
    node: Any = tree
    for part in qualname.split("."):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) and child.name == part:
                node = child
                break
        else:
            raise LookupError(f"no {qualname} in {path}")
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    return first, node.end_lineno


def line_of(path: str | Path, qualname: str, contains: str) -> int:
    """The first line inside `def qualname` containing the text `contains`."""
    first, last = def_lines(path, qualname)
    lines = (REPO_DIR / path).read_text(encoding="utf-8").splitlines()
    for n in range(first, last + 1):
        if contains in lines[n - 1]:
            return n
    raise LookupError(f"{contains!r} is not in {qualname} ({path})")

