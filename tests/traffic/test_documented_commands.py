"""Every `blockviz traffic` command README.md and lesson 13 show, run exactly as written."""
import re
import shlex
from pathlib import Path

import pytest

from blockviz.commands import main
from tests.documented import command_lines

ROOT = Path(__file__).resolve().parents[2]


def commands() -> list[str]:
    found = []
    for name in ("README.md", "lesson/13_real_traffic.md"):
        text = (ROOT / name).read_text(encoding="utf-8")
        found += command_lines(name, "blockviz traffic")                              # indented code lines
        found += re.findall(r"`(blockviz traffic [^`]+)`", text)                      # inline code
    return sorted(set(found))


def test_the_documents_show_traffic_commands():
    assert len(commands()) >= 3


@pytest.mark.parametrize("command", commands())
def test_a_documented_command_runs_as_written(command, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)   # where its --png lands
    argv = shlex.split(command)
    assert argv[:2] == ["blockviz", "traffic"]
    assert main(argv[1:]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "an infinite cache serves" in out and "GiB" in out
    if "--png" in argv:
        assert (tmp_path / argv[argv.index("--png") + 1]).read_bytes()[:4] == b"\x89PNG"


def test_the_readme_traffic_python_runs_as_written():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Real traffic"):]
    code = section[section.index("```python\n") + len("```python\n"):section.index("```\n", section.index("```python"))]
    assert "traffic.curve(trace)" in code
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    c = namespace["c"]
    assert 0 < c.hit_rate(10_000_000) <= c.max_hit_rate <= namespace["trace"].theoretical_hit_rate()
