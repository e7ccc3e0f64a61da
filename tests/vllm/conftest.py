"""One real vLLM server for the whole test session, started the way a user starts it
(`blockviz vllm serve`, on loopback, a small pool so eviction shows) and stopped after with a
Ctrl-C, as in a terminal. Without .venv-vllm these tests skip locally and fail in CI (CI=true)."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from blockviz.vllm import Watch
from blockviz.vllm.client import Client
from blockviz.vllm.serve import MAKE_ENV, PROJECT_VLLM_PYTHON, _group_alive

from tests.vllm.synthetic import free_port

BLOCKS = 16   # 15 usable (vLLM keeps one null block) of 32 tokens: a few prompts fill it


class RealServer:
    def __init__(self, api: str, events: str, replay: str, log: Path, process: subprocess.Popen):
        self.api, self.events, self.replay, self.log, self.process = api, events, replay, log, process
        self.client = Client(api)
        self.ready_line = ""


def need_vllm():
    """Skip without .venv-vllm, except in CI (CI=true), where its absence fails the test."""
    if not PROJECT_VLLM_PYTHON.is_file():
        reason = f"no {PROJECT_VLLM_PYTHON.parent.parent.name}: create it with `{MAKE_ENV}`"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason}; CI runs the tests against a real vLLM (scripts/test.sh creates it)")
        pytest.skip(reason)


@pytest.fixture(scope="session")
def vllm_server(tmp_path_factory):
    need_vllm()
    folder = tmp_path_factory.mktemp("vllm")
    port, replay = free_port(), f"tcp://127.0.0.1:{free_port()}"
    events = f"ipc://{folder}/kv-events"   # vLLM binds ipc endpoints: every watch of the session connects
    log = folder / "vllm.log"
    cmd = [sys.executable, "-m", "blockviz", "vllm", "serve", "--port", str(port), "--events", events,
           "--replay", replay, "--blocks", str(BLOCKS), "--dev-mode", "--log", str(log)]
    process = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               start_new_session=True, preexec_fn=_ctrl_c_as_in_a_terminal)
    server = RealServer(f"http://127.0.0.1:{port}", events, replay, log, process)
    deadline = time.monotonic() + 600
    for line in process.stdout:
        if "ready" in line:
            server.ready_line = line
            break
        if time.monotonic() > deadline:
            break
    if not server.ready_line:
        process.kill()
        tail = log.read_text(errors="replace")[-3000:] if log.exists() else ""
        pytest.fail(f"blockviz vllm serve did not get ready: {process.stdout.read()[-2000:]}\n{tail}")
    yield server
    # Ctrl-C in a terminal: SIGINT to `blockviz vllm serve`, which stops vLLM's own process group
    vllm_group = next(int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and _is_vllm(p, process.pid))
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=60) == 0
    assert not _group_alive(vllm_group), "vLLM's engine outlived `blockviz vllm serve`"


def _ctrl_c_as_in_a_terminal() -> None:
    # A test run started in the background (`cmd &` in a script) inherits SIGINT ignored, and so would the
    # server, which then could not be stopped the way a terminal stops it.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _is_vllm(proc: Path, parent: int) -> bool:
    try:
        fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return int(fields[1]) == parent and int(fields[2]) == int(proc.name)   # its child, leading a group


@pytest.fixture(scope="session")
def live_watch(vllm_server):
    with Watch(vllm_server.events, vllm_server.api, vllm_server.replay) as watch:
        yield watch
