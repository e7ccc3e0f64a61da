"""JupyterLab and Debian's chromium for the browser tests: a lab on a free localhost port with a
token, its settings and state kept in a temporary folder, serving one folder of notebooks."""
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]


def find_chromium() -> str | None:
    for candidate in ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


@pytest.fixture
def chromium() -> str:
    path = find_chromium()
    if path is None:
        pytest.skip("chromium not found (run tests/browser/install_chromium.sh as root)")
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def jupyterlab(root: Path, state: Path) -> Iterator[str]:
    """Serve `root`; yields the URL prefix "http://127.0.0.1:PORT/lab/tree/{notebook}?token=..."
    as a format string. Fails the test with the server's log if it does not start."""
    port, token = free_port(), secrets.token_hex(16)
    settings = state / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false",
                                                                            "checkForUpdates": False}))
    env = {**os.environ, "JUPYTERLAB_SETTINGS_DIR": str(state / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(state / "workspaces"), "JUPYTER_RUNTIME_DIR": str(state / "runtime"),
           "JUPYTER_CONFIG_DIR": str(state / "config"), "HOME": str(state)}  # self-assessments land here
    log_path = state / "lab.log"
    log = open(log_path, "w")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
         "--LabApp.expose_app_in_browser=True", "--ServerApp.port_retries=0", "--allow-root",
         "--LabApp.extension_manager=readonly"],
        cwd=state, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("JupyterLab did not start:\n" + log_path.read_text()[-3000:])
                time.sleep(0.5)
        yield f"{base}/lab/tree/{{notebook}}?token={token}"
    finally:
        server.terminate()
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


@contextmanager
def notebook_page(chromium: str, url: str) -> Iterator:
    """A chromium page on the notebook at `url`, its kernel ready and every cell started."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            page.goto(url, timeout=120_000)
            page.wait_for_function("window.jupyterapp?.shell.currentWidget?.sessionContext?.isReady",
                                   timeout=120_000)
            page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
            yield page
        finally:
            browser.close()
