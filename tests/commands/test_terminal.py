"""Nothing below the commands prints for a terminal: print() is called in blockviz/commands/ only, and
in the few programs of their own named here, each with its reason. The floors below return text
(views/render_text.py, text.py, traffic/plot.py's table) and the commands print it."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

ELSEWHERE = {
    "blockviz/demo/server.py": "the demo's start message (where the teacher's and the class pages are), "
                               "printed by the server it starts and stops",
    "blockviz/vllm/guard.py": "a program of its own, run as a file in front of vLLM: its one warning",
    "blockviz/exercises/sets.py": "its __main__ writes the practice-set pages and names each (a maintainer's step)",
    "blockviz/radix/radix_cache.py": "SGLang's file kept line for line (tests/radix/test_upstream_text.py): its "
                                     "pretty_print and __main__ demo are upstream's debugging aids",
}


def printing_files(root: Path) -> set[str]:
    """The files under root/blockviz that call the builtin print (a print in a string does not count)."""
    found = set()
    for path in sorted((root / "blockviz").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        if any(isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"
               for node in ast.walk(tree)):
            found.add(path.relative_to(root).as_posix())
    return found


def test_only_the_commands_print():
    outside = {path for path in printing_files(ROOT) if not path.startswith("blockviz/commands/")}
    assert sorted(outside - set(ELSEWHERE)) == [], "print for a terminal in blockviz/commands/, not here"
    assert sorted(set(ELSEWHERE) - outside) == [], "these no longer print: take them off ELSEWHERE"


def test_the_check_sees_a_print_in_a_function_but_not_in_a_string(tmp_path):
    (tmp_path / "blockviz" / "sub").mkdir(parents=True)
    (tmp_path / "blockviz" / "sub" / "loud.py").write_text("def f():\n    print('hi', file=None)\n")
    (tmp_path / "blockviz" / "quiet.py").write_text("CODE = \"print(1)\"\nlog = print is None\n")
    assert printing_files(tmp_path) == {"blockviz/sub/loud.py"}
