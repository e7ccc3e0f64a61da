"""Every command line README.md shows, indented or backquoted in its prose, and the `blockviz demo` lines of
lesson 09, each accounted for in one table, checked both ways (every line shown has an entry, every entry a
line): RUN_BY names the test that runs it exactly as written; the few a test cannot run here are in
TEST_COMMAND (the test command itself and its set-up), RUN_WITH (run with what a test must add),
PRINTED_BY (output shown, checked by the test that prints it) or NOT_RUN (why not; each is parsed by the
real argument parser). The demo lines and the vLLM serve/watch pair run here, as in a terminal: started,
read, then stopped with a Ctrl-C; the README's watch and lab snippets run against that server."""
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

from tests.documented import ROOT, code_lines, command_lines, inline_commands
from tests.test_readme import run_showing, snippet

DEMO_LESSON = "lesson/09_classroom_demo.md"
DEMO_TEST = "tests/test_readme_commands.py::test_a_documented_demo_command_runs_as_written"
VLLM_TEST = "tests/test_readme_commands.py::test_the_readme_vllm_serve_and_watch_lines_run_as_written"
TRAFFIC_TEST = "tests/traffic/test_documented_commands.py::test_a_documented_command_runs_as_written"

LESSONS_TEST = "tests/test_lessons_command.py::test_lessons_command_serves_the_start_notebook"
INLINE_TEST = "tests/test_readme_commands.py::test_a_cheap_inline_command_runs_as_written"
WATCH_INSTANCES_TEST = "tests/test_readme_commands.py::test_the_watch_of_two_instances_runs_as_written"
FLEET_LINE_TEST = "tests/test_readme_commands.py::test_serve_instances_prints_the_attach_line_of_the_fleet_snippet"

RUN_BY = {   # (document, line as written without its comment) -> the test that runs it
    ("README.md", "blockviz demo"): DEMO_TEST,
    ("README.md", "blockviz demo --model /path/Qwen3-0.6B --device cuda --blocks 64 --block-size 16"): DEMO_TEST,
    ("README.md", "blockviz demo --share --lang zh"): DEMO_TEST,
    ("README.md", "blockviz vllm serve --blocks 16 --dev-mode"): VLLM_TEST,   # indented, and again in the lab's prose
    ("README.md", "blockviz vllm watch --tree"): VLLM_TEST,
    ("README.md", "blockviz traffic conversation --png curve.png"): TRAFFIC_TEST,
    ("README.md", "blockviz traffic conversation --head 200 --pools 1e6,8GiB --model qwen3-8b"): TRAFFIC_TEST,
    ("README.md", "blockviz traffic conversation --head 100 --pools 1e6 --policy nano-vllm,vllm,sglang"): TRAFFIC_TEST,
    ("README.md", "blockviz demo --help"): INLINE_TEST,
    ("README.md", "blockviz vllm watch --instances 2"): WATCH_INSTANCES_TEST,
    (DEMO_LESSON, "blockviz demo"): DEMO_TEST,
    (DEMO_LESSON, "blockviz demo --lang zh"): DEMO_TEST,
    (DEMO_LESSON, "blockviz demo --device cuda --model PATH --kv-memory 2G"): DEMO_TEST,
    (DEMO_LESSON, "blockviz demo --share --no-browser"): DEMO_TEST,
}
RUN_WITH = {   # line -> (the test that runs it, what it runs it with and why)
    ("README.md", "bash scripts/lessons.sh"): (LESSONS_TEST, "adds --no-browser and a free --port: a test opens no "
                                               "browser and must not take JupyterLab's default port"),
    ("README.md", "blockviz simulate --print NAME"): (INLINE_TEST, "NAME stands for a preset: run with each name "
                                                     "`blockviz simulate --list` prints"),
}
TEST_COMMAND = {   # line -> what runs it: the test command is the suite itself, no test can run it
    ("README.md", "bash scripts/test.sh"): ".ci/run (CI's entry point) runs it as written",
    ("README.md", "bash scripts/test.sh tests/browser"): "the test command, its arguments passed to pytest",
    ("README.md", "bash scripts/test.sh tests/engine -x"): "the test command, its arguments passed to pytest",
    ("README.md", "bash scripts/test.sh tests/vllm"): "the test command, its arguments passed to pytest",
    ("README.md", "bash scripts/vllm_env.sh"): "scripts/test.sh runs it as written, as its set-up",
}
PRINTED_BY = {   # output the README shows -> the test that checks the command prints it in that form
    ("README.md", "teacher: http://127.0.0.1:PORT/doc/tree/demo.ipynb?token=...   (JupyterLab: keep it to yourself)"):
        DEMO_TEST,
    ("README.md", "class: http://192.168.1.20:PORT/                                 (the projector and the students)"):
        DEMO_TEST,
}
NOT_RUN_LINE_SERVE_INSTANCES = "blockviz vllm serve --instances 2 --blocks 16 --dev-mode"
NOT_RUN = {   # line -> why no test runs it here (each is parsed by blockviz.commands' parser)
    ("README.md", "blockviz vllm serve -- --tensor-parallel-size 2"): "needs two GPUs",
    ("README.md", "blockviz vllm serve --vllm-python /path/to/venv/bin/python --model /path/to/Qwen3 -- "
                  "--gpu-memory-utilization 0.8"): "needs a GPU, a vLLM installation and a checkpoint",
    ("README.md", NOT_RUN_LINE_SERVE_INSTANCES):
        f"two more vLLM servers would take the test command past its time limit; {FLEET_LINE_TEST} runs it up to "
        "the start and checks the line it prints, and tests/vllm/test_fleet_real.py runs the fleet snippet",
    ("README.md", "blockviz vllm lab --stream mixed --html lab.html"):
        "the mixed stream through a real vLLM takes minutes; the lab snippet runs on the README's server "
        f"({VLLM_TEST}) and tests/vllm/test_lab_real.py runs `blockviz vllm lab` against the session's server",
}
TABLES = (RUN_BY, RUN_WITH, TEST_COMMAND, PRINTED_BY, NOT_RUN)


def documented() -> set[tuple[str, str]]:
    return ({("README.md", line) for line in code_lines("README.md") + inline_commands("README.md")}
            | {(DEMO_LESSON, line) for line in command_lines(DEMO_LESSON, "blockviz demo", indent="")})


def test_every_documented_command_line_has_one_entry_and_every_entry_a_line():
    shown = documented()
    entries = [key for table in TABLES for key in table]
    assert len(entries) == len(set(entries)), "a line in two tables"
    assert not shown - set(entries), f"no table says what runs these lines: {sorted(shown - set(entries))}"
    assert not set(entries) - shown, f"stale entries, the documents no longer show: {sorted(set(entries) - shown)}"
    tests = set(RUN_BY.values()) | {test for test, _ in RUN_WITH.values()} | set(PRINTED_BY.values())
    for test in tests:
        path, name = test.split("::")
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        assert name in {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}, test
    from tests.conftest import README_VLLM
    assert README_VLLM == VLLM_TEST   # it holds vLLM's default ports: the real-vLLM group runs it alone


def test_the_test_command_runs_its_lines_as_written():
    assert "exec bash scripts/test.sh\n" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    script = (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8")
    assert re.search(r"^\( set \+e; bash scripts/vllm_env.sh ", script, flags=re.M)
    assert re.search(r'^\.venv/bin/python -m pytest .*"\$@"', script, flags=re.M)   # arguments go to pytest
    for _, line in TEST_COMMAND:
        if line.startswith("bash scripts/test.sh "):
            paths = [a for a in shlex.split(line)[2:] if not a.startswith("-")]
            assert paths and all((ROOT / p / "conftest.py").exists() or any((ROOT / p).glob("test_*.py"))
                                 for p in paths), line


def test_the_lines_no_test_runs_parse_as_the_command_reads_them():
    from blockviz.commands import build_parser
    for _, line in NOT_RUN:
        argv, extra = shlex.split(line)[1:], []
        if "--" in argv:   # as blockviz.commands.main splits it: what follows goes to vLLM unchanged
            argv, extra = argv[:argv.index("--")], argv[argv.index("--") + 1:]
        args = build_parser().parse_args(argv)
        assert (args.command, args.vllm_command) == ("vllm", argv[1]), line
        assert extra == shlex.split(line.partition(" -- ")[2])


def test_the_readme_benchmarks_live_in_docs_benchmarks():
    """No test can run them (minutes each, one needs a GPU): README points to docs/benchmarks.md, which keeps
    the list README had."""
    listed = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8").split("## Every benchmark script", 1)[1]
    assert "docs/benchmarks.md" in (ROOT / "README.md").read_text(encoding="utf-8").split("## Benchmarks", 1)[1]
    for script in ("engine", "workload", "trace_scale", "views", "model", "demo", "vllm_watch", "router",
                   "traffic", "traffic_views", "designs_view"):
        assert f"bench/{script}.py" in listed and (ROOT / "bench" / f"{script}.py").exists(), script
    assert "bash bench/gpu.sh" in listed and (ROOT / "bench" / "gpu.sh").exists()


def test_the_extractor_cuts_comments_and_keeps_bare_commands():
    lines = command_lines("README.md")
    assert "blockviz demo" in lines and "blockviz vllm watch --tree" in lines
    assert not any("#" in line or line != line.strip() for line in lines)
    code = code_lines("README.md")
    assert set(lines) < set(code) and "bash scripts/lessons.sh" in code
    assert not any("blockviz simulate --list" in line for line in code)   # a fenced block's: tests/test_readme.py
    inline = inline_commands("README.md")   # a line break inside the quotes is a space
    assert "blockviz vllm serve --instances 2 --blocks 16 --dev-mode" in inline and "bash scripts/vllm_env.sh" in inline
    assert not any("\n" in line or "  " in line for line in inline)


def test_a_cheap_inline_command_runs_as_written(tmp_path):
    from tests.test_readme import shell
    result = shell("blockviz demo --help", tmp_path)
    assert result.returncode == 0 and result.stdout.startswith("usage: blockviz demo ") and "--history" in result.stdout
    listed = shell("blockviz simulate --list", tmp_path)
    names = re.findall(r"^(\w+)  ", listed.stdout, flags=re.M)
    from blockviz.scenarios import PRESETS_DIR
    assert sorted(names) == sorted(p.stem for p in PRESETS_DIR.glob("*.toml")), listed.stdout
    line, = (line for line in inline_commands("README.md") if line.startswith("blockviz simulate --print"))
    for name in names:   # NAME stands for each of them
        printed = shell(line.replace("NAME", name), tmp_path)
        assert printed.returncode == 0 and printed.stdout == (PRESETS_DIR / f"{name}.toml").read_text(encoding="utf-8")


@pytest.mark.timeout(120)
def test_the_watch_of_two_instances_runs_as_written(tmp_path):
    """Before or without the servers: it connects to both instances' endpoints, says so, and a Ctrl-C ends it."""
    out = tmp_path / "out.txt"
    with open(out, "w") as stdout:
        watch = subprocess.Popen(as_run("blockviz vllm watch --instances 2"), cwd=tmp_path, env=environment(tmp_path),
                                 stdout=stdout, stderr=subprocess.STDOUT, preexec_fn=ctrl_c_as_in_a_terminal)
    try:
        text = wait_for(out, "Ctrl-C stops", watch, 90)
        assert "watching tcp://127.0.0.1:5557, tcp://127.0.0.1:5559 (replay ['tcp://127.0.0.1:5558', " \
               "'tcp://127.0.0.1:5560'])" in text, text
        watch.send_signal(signal.SIGINT)
        assert watch.wait(timeout=30) == 0, out.read_text()[-2000:]
    finally:
        stop(watch)


def test_serve_instances_prints_the_attach_line_of_the_fleet_snippet(monkeypatch, capsys):
    """`blockviz vllm serve --instances 2 --blocks 16 --dev-mode` run as written up to starting its servers:
    the line it prints once they serve is the fleet snippet's first line."""
    from blockviz.commands import main, serve
    started = []
    monkeypatch.setattr(serve, "serve_until_stopped", lambda fleet, ready: started.append(fleet) or print(ready()) or 0)
    line = NOT_RUN_LINE_SERVE_INSTANCES
    assert main(shlex.split(line)[1:]) == 0
    fleet, = started
    assert [s.port for s in fleet.settings.values()] == [8000, 8001] and all(
        s.blocks == 16 and s.dev_mode for s in fleet.settings.values())
    printed = capsys.readouterr().out
    attach = re.search(r"^    (fleet = Fleet\.of\(.*\)); watch = fleet\.watch\(\)$", printed, flags=re.M).group(1)
    first = next(x for x in snippet("fleet.compare(").splitlines() if x.startswith("fleet = "))
    assert first.split("   #")[0] == attach


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
    return sorted({line for (_, line), test in RUN_BY.items() if test == DEMO_TEST})


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


def held(blocks) -> list[tuple]:
    """A picture's cache: which blocks, with what tokens, stored when (not removed_at: a batch that came in
    after the picture or the save may mark one removed)."""
    return [(r.hash, r.token_ids, r.stored_at) for r in blocks]


def the_lab_and_watch_snippets_run_as_written(where: Path):
    """The README's lab snippet, then its watch snippet, as written, against the README's server on vLLM's
    default ports (the lab's resets leave its cache empty, as a fresh server's is)."""
    import blockviz.vllm
    code = snippet("result = run_lab(")
    names, out, shown = run_showing(code, where)
    result = names["result"]
    assert out == result.summary() + "\n" and not result.unexplained, out
    assert result.vllm_blocks == 16 and result.block_size == 32   # `serve --blocks 16`, vLLM's CPU block size
    loaded, _ = shown['load_lab("lab.json")']
    assert loaded.summary() == result.summary()   # "shown again without a server"
    typed, = (line.strip().removeprefix("# ").split("   #")[0] for line in code.splitlines()
              if line.strip().startswith("# stream = parse("))
    exec(typed, names)   # the typed alternative, where its comment stands (w is the watch's tokenizer)
    assert [(r.follows, r.group) for r in names["stream"]] == [(None, None), (0, None), (None, 0), (None, 0)]
    names, out, shown = run_showing(snippet("w = blockviz.vllm.watch("), where)
    w = names["w"]
    try:
        assert shown["show(w)"] is not None and not out
        assert shown["w.cached_tokens(prompt)"] == shown["Client().complete(prompt).cached_tokens"]
        prompt, block = names["prompt"], result.block_size
        whole = {tuple(prompt[i:i + block]) for i in range(0, len(prompt) - block + 1, block)}
        assert len(whole) == 3 and whole <= {r.token_ids for r in shown["w.picture(w.last_step).blocks"]}
        saved = blockviz.vllm.load(where / "run.jsonl")
        steps = range(saved.first_step, saved.last_step + 1)   # replayed offline: every kept step
        assert all(held(saved.picture(s).blocks) == held(w.picture(s).blocks) for s in steps)
        assert whole <= {r.token_ids for r in saved.picture(saved.last_step).blocks}
    finally:
        w.close()


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
        the_lab_and_watch_snippets_run_as_written(tmp_path)   # on this server: the snippets' ports are its own
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=60) == 0, served.read_text()[-3000:]
        assert not _group_alive(vllm_group), "vLLM's engine outlived `blockviz vllm serve`"
    finally:
        for process in (watch, server):
            stop(process)
