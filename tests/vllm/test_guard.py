"""serve.Server starts vLLM through guard.py, so a server ends with the process that started it,
even one killed outright (a notebook kernel killed with SIGKILL runs no atexit handler)."""
import os
import subprocess
import sys
import time

import pytest

from blockviz.vllm.serve import GUARD, Server, ServerSettings, _group_alive

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="prctl(PR_SET_PDEATHSIG) is Linux's")

STARTER = """
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, sys.argv[1], str(os.getpid()), "/bin/sleep", "600"], start_new_session=True)
print(child.pid, flush=True)
time.sleep(600)
"""


def test_a_guarded_command_ends_when_its_starter_is_killed_outright():
    starter = subprocess.Popen([sys.executable, "-c", STARTER, str(GUARD)], stdout=subprocess.PIPE, text=True)
    child = int(starter.stdout.readline())
    deadline = time.monotonic() + 10
    while not _command_of(child).startswith("/bin/sleep") and time.monotonic() < deadline:
        time.sleep(0.05)  # the guard has not become sleep yet
    assert _command_of(child).startswith("/bin/sleep") and _group_alive(child)
    starter.kill()
    starter.wait()
    deadline = time.monotonic() + 10
    while _group_alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _group_alive(child), "the guarded command outlived the process that started it"


def test_a_guard_whose_parent_is_gone_already_runs_nothing():
    done = subprocess.run([sys.executable, str(GUARD), "1", "/bin/echo", "ran"], capture_output=True, text=True)
    assert done.returncode == 1 and done.stdout == ""


def test_the_server_is_started_through_the_guard(tmp_path, monkeypatch):
    python = tmp_path / "python"
    python.write_text("#!/bin/sh\nexec sleep 600\n")
    python.chmod(0o755)
    started = []
    monkeypatch.setattr(subprocess, "Popen", lambda cmd, **kwargs: started.append(cmd) or _Stopped())
    Server(ServerSettings(vllm_python=python)).start()
    assert started[0][:4] == [sys.executable, str(GUARD), str(os.getpid()), str(python)]


class _Stopped:
    pid = -1

    def poll(self):
        return 0


def _command_of(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode()
    except OSError:
        return ""
