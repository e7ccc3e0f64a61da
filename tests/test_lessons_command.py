"""The README's first command (scripts/lessons.sh) serves the start notebook in JupyterLab, with
JupyterLab's news pop-up off."""
import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_lessons_command_serves_the_start_notebook(tmp_path):
    port, token = free_port(), "blockviz-test"
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path), "JUPYTER_CONFIG_DIR": str(tmp_path / "config")}
    server = subprocess.Popen(["bash", "scripts/lessons.sh", "--no-browser", f"--port={port}",
                               f"--ServerApp.token={token}"], cwd=ROOT, env=env, start_new_session=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}/api/contents/notebooks/en/00_start_here.ipynb?token={token}"
    try:
        deadline = time.monotonic() + 90
        while True:
            assert server.poll() is None, f"lessons.sh exited: {server.stderr.read()[-2000:]}"
            try:
                with urllib.request.urlopen(url, timeout=5) as response:
                    notebook = json.load(response)
                break
            except OSError:
                assert time.monotonic() < deadline, "JupyterLab did not answer within 90 s"
                time.sleep(0.5)
        assert notebook["type"] == "notebook" and notebook["content"]["cells"]
        # announcements off for learners: no "get notified about official Jupyter news?" pop-up
        notification = f"http://127.0.0.1:{port}/lab/api/settings/@jupyterlab/apputils-extension:notification?token={token}"
        with urllib.request.urlopen(notification, timeout=10) as response:
            schema = json.load(response)["schema"]["properties"]
        assert schema["fetchNews"]["default"] == "false" and schema["checkForUpdates"]["default"] is False
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
