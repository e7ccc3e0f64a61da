"""Every indented `blockviz ...` line of README.md, and the `blockviz demo` lines of lesson 09, run by a
test exactly as written: RUN_BY names the test of each line and is checked both ways. The demo lines and
the vLLM serve/watch pair run here, as in a terminal: started, read, then stopped with a Ctrl-C."""
import ast
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.documented import ROOT, command_lines

DEMO_LESSON = "lesson/09_classroom_demo.md"
DEMO_TEST = "tests/test_readme_commands.py::test_a_documented_demo_command_runs_as_written"
VLLM_TEST = "tests/test_readme_commands.py::test_the_readme_vllm_serve_and_watch_lines_run_as_written"
TRAFFIC_TEST = "tests/traffic/test_documented_commands.py::test_a_documented_command_runs_as_written"

RUN_BY = {   # (document, line as written without its comment) -> the test that runs it
    ("README.md", "blockviz demo"): DEMO_TEST,
    ("README.md", "blockviz demo --model /path/Qwen3-0.6B --device cuda --blocks 64 --block-size 16"): DEMO_TEST,
    ("README.md", "blockviz demo --share --lang zh"): DEMO_TEST,
    ("README.md", "blockviz vllm serve --blocks 24"): VLLM_TEST,
    ("README.md", "blockviz vllm watch --tree"): VLLM_TEST,
    ("README.md", "blockviz traffic conversation --png curve.png"): TRAFFIC_TEST,
    ("README.md", "blockviz traffic conversation --head 200 --pools 1e6,8GiB --model qwen3-8b"): TRAFFIC_TEST,
    ("README.md", "blockviz traffic conversation --head 100 --pools 1e6 --policy nano-vllm,vllm,sglang"): TRAFFIC_TEST,
    (DEMO_LESSON, "blockviz demo"): DEMO_TEST,
    (DEMO_LESSON, "blockviz demo --lang zh"): DEMO_TEST,
    (DEMO_LESSON, "blockviz demo --device cuda --model PATH --kv-memory 2G"): DEMO_TEST,
    (DEMO_LESSON, "blockviz demo --share --no-browser"): DEMO_TEST,
}


def documented() -> set[tuple[str, str]]:
    return ({("README.md", line) for line in command_lines("README.md")}
            | {(DEMO_LESSON, line) for line in command_lines(DEMO_LESSON, "blockviz demo", indent="")})


def test_every_documented_command_line_has_a_test_and_every_entry_a_line():
    shown = documented()
    assert not shown - RUN_BY.keys(), f"no test runs these lines as written: {sorted(shown - RUN_BY.keys())}"
    assert not RUN_BY.keys() - shown, f"stale entries, the documents no longer show: {sorted(RUN_BY.keys() - shown)}"
    for test in set(RUN_BY.values()):
        path, name = test.split("::")
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        assert name in {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}, test
    from tests.conftest import README_VLLM
    assert README_VLLM == VLLM_TEST   # it holds vLLM's default ports: the real-vLLM group runs it alone


def test_the_extractor_cuts_comments_and_keeps_bare_commands():
    lines = command_lines("README.md")
    assert "blockviz demo" in lines and "blockviz vllm watch --tree" in lines
    assert not any("#" in line or line != line.strip() for line in lines)


def as_run(line: str) -> list[str]:
    """`line` split as a shell splits it, `blockviz` being this checkout's command."""
    argv = shlex.split(line)
    assert argv[0] == "blockviz"
    return [sys.executable, "-m", "blockviz", *argv[1:]]


def environment(where: Path) -> dict:
    """This checkout's blockviz; a `browser` that writes down the URL it is asked to open."""
    browser = where / "browser"
    browser.write_text(f'#!/bin/sh\necho "$1" >> "{where}/opened.txt"\n')
    browser.chmod(0o755)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BROWSER": str(browser)}
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    return env


def ctrl_c_as_in_a_terminal() -> None:
    # a test run started in the background (`cmd &`) inherits SIGINT ignored; a terminal's command does not
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def wait_for(out: Path, text: str, process: subprocess.Popen, limit_s: float) -> str:
    deadline = time.monotonic() + limit_s
    while text not in out.read_text(errors="replace"):
        if process.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"no {text!r} in {limit_s:.0f} s (exit {process.returncode}):\n{out.read_text()[-3000:]}")
        time.sleep(0.3)
    return out.read_text(errors="replace")


def stop(process: subprocess.Popen | None) -> None:
    """After a failure: Ctrl-C first, so that the command still stops what it started in a session of its
    own (the demo's JupyterLab, vLLM's engine); a kill only if that does not end it."""
    if process is not None and process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def fetch(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.status, response.read().decode("utf-8", errors="replace")


def demo_lines() -> list[str]:
    return sorted({line for _, line in documented() if line.startswith("blockviz demo")})


@pytest.mark.timeout(240)   # a demo starts in ~12 s alone; much longer on two loaded cores
@pytest.mark.parametrize("line", demo_lines())
def test_a_documented_demo_command_runs_as_written(line, tmp_path):
    argv = shlex.split(line)
    option = dict(zip(argv, argv[1:]))
    out, errors = tmp_path / "out.txt", tmp_path / "err.txt"
    with open(out, "w") as stdout, open(errors, "w") as stderr:
        demo = subprocess.Popen(as_run(line), cwd=tmp_path, env=environment(tmp_path), stdout=stdout,
                                stderr=stderr, preexec_fn=ctrl_c_as_in_a_terminal)
    try:
        if "--model" in option:   # a checkpoint folder this machine does not have: one line, exit 2, at once
            model = option["--model"]
            if (tmp_path / model).exists():
                pytest.skip(f"{model} exists here: the line would serve it")
            started = time.monotonic()
            assert demo.wait(timeout=120) == 2
            err = errors.read_text()
            assert err.count("\n") == 1, err
            assert err.startswith(f"blockviz demo: model folder not found: {model} "), err
            assert time.monotonic() - started < 60 and not out.read_text()
            return
        text = wait_for(out, "press Ctrl+C", demo, 180)
        teacher = [x.removeprefix("teacher: ") for x in text.splitlines() if x.startswith("teacher: ")]
        classes = [x.removeprefix("class: ") for x in text.splitlines() if x.startswith("class: ")]
        assert len(teacher) == len(classes) == 1, text   # the two URLs, each on its own line
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/doc/tree/demo\.ipynb\?token=\w{16,}", teacher[0]), teacher
        host, port = re.fullmatch(r"http://([^/]+):(\d+)/", classes[0]).groups()
        if "--share" in argv:   # open to the network: by its LAN address (or host name), and on loopback too
            assert host not in ("127.0.0.1", "localhost"), classes
            assert f"(the class page also answers at http://127.0.0.1:{port}/)" in text
        else:
            assert host == "127.0.0.1" and "the class page is on this machine only" in text
        assert "model " in text and "/blockviz/models/default on " in text   # the embedded model
        assert fetch(teacher[0])[0] == 200
        status, page = fetch(f"http://127.0.0.1:{port}/")
        assert status == 200
        if option.get("--lang") == "zh":
            assert '<html lang="zh-CN">' in page and "课堂页面" in page
        else:
            assert '<html lang="en">' in page and "课堂页面" not in page
        opened = tmp_path / "opened.txt"
        if "--no-browser" in argv:
            assert not opened.exists()
        else:   # webbrowser.open runs after the URLs are printed
            deadline = time.monotonic() + 30
            while not opened.exists() and time.monotonic() < deadline:
                time.sleep(0.2)
            assert opened.read_text().split() == teacher
        demo.send_signal(signal.SIGINT)
        assert demo.wait(timeout=60) == 0, errors.read_text()[-3000:]
        assert out.read_text().rstrip().endswith("stopping")
    finally:
        stop(demo)


def port_free(port: int) -> bool:
    with socket.socket() as s:   # bound as servers bind: a TIME_WAIT left by the last run owns nothing
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


@pytest.mark.timeout(900)   # the server starts in 1-4 minutes on two loaded cores
def test_the_readme_vllm_serve_and_watch_lines_run_as_written(tmp_path):
    """Its default ports (8000, events 5557, replay 5558): tests/conftest.py runs it in the real-vLLM group,
    one after another, so no other test's server holds them."""
    from blockviz.vllm.client import Client
    from blockviz.vllm.serve import _group_alive
    from tests.vllm.conftest import _is_vllm, need_vllm
    need_vllm()
    lines = command_lines("README.md", "blockviz vllm")
    serve_line, = (line for line in lines if line.startswith("blockviz vllm serve"))
    watch_line, = (line for line in lines if line.startswith("blockviz vllm watch"))
    busy = [port for port in (8000, 5557, 5558) if not port_free(port)]
    assert not busy, f"the README's default ports {busy} are in use on this machine"
    env = environment(tmp_path)
    served, watched = tmp_path / "serve.txt", tmp_path / "watch.txt"
    with open(served, "w") as stdout:
        server = subprocess.Popen(as_run(serve_line), cwd=tmp_path, env=env, stdout=stdout, stderr=subprocess.STDOUT,
                                  start_new_session=True, preexec_fn=ctrl_c_as_in_a_terminal)
    watch = None
    try:
        wait_for(served, "ready at http://127.0.0.1:8000", server, 600)
        with open(watched, "w") as stdout:
            watch = subprocess.Popen(as_run(watch_line), cwd=tmp_path, env=env, stdout=stdout,
                                     stderr=subprocess.STDOUT, preexec_fn=ctrl_c_as_in_a_terminal)
        wait_for(watched, "watching", watch, 120)
        time.sleep(1)   # ZMQ's slow joiner: the subscription reaches vLLM's publisher
        prompt = ("It is a truth universally acknowledged, that a single man in possession of a good fortune, "
                  "must be in want of a wife. ") * 3
        Client().complete(prompt, max_tokens=2)   # 85 tokens: two full blocks of 32, the ones vLLM stores
        text = wait_for(watched, "\n    + ", watch, 60)   # --tree: the second block of the prompt's chain
        assert re.search(r"^step \d+ · tcp://127\.0\.0\.1:5557.* · \+\d+ stored", text, flags=re.M), text
        chain = r"^  tcp://127\.0\.0\.1:5557\n  \+ \S+ It␣is␣a␣truth.*\n    \+ \S+ "   # a block's text, spaces shown
        assert re.search(chain, text, flags=re.M), text
        vllm_group = next(int(p.name) for p in Path("/proc").iterdir()
                          if p.name.isdigit() and _is_vllm(p, server.pid))
        watch.send_signal(signal.SIGINT)
        assert watch.wait(timeout=30) == 0, watched.read_text()[-2000:]
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=60) == 0, served.read_text()[-3000:]
        assert not _group_alive(vllm_group), "vLLM's engine outlived `blockviz vllm serve`"
    finally:
        for process in (watch, server):
            stop(process)
