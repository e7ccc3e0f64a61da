"""`blockviz demo --share` for real (tiny model, no browser): it prints one teacher: and one class:
line; the teacher's JupyterLab answers only on 127.0.0.1 and refuses terminals; the class page
answers on the network and refuses the Jupyter API; nothing on the class side carries the token."""
import http.client
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from blockviz.demo.server import lan_address
from tests.demo.conftest import SYSTEM

pytestmark = pytest.mark.timeout(240)


@pytest.fixture
def shared_demo(tiny_model, tmp_path):
    out = tmp_path / "stdout.txt"
    with open(out, "w") as stdout:
        server = subprocess.Popen(
            [sys.executable, "-m", "blockviz", "demo", "--model", str(tiny_model), "--device", "cpu",
             "--blocks", "24", "--block-size", "4", "--requests", "2", "--system-prompt", SYSTEM, "--share",
             "--no-browser", "--dir", str(tmp_path / "demo")], stdout=stdout, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 180
        while "press Ctrl+C" not in out.read_text():
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail("blockviz demo did not start:\n" + out.read_text()[-3000:])
            time.sleep(0.3)
        yield out.read_text()
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(40)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def status(url: str, method: str = "GET", headers: dict | None = None) -> int:
    request = urllib.request.Request(url, method=method, headers=headers or {},
                                     data=b"{}" if method in ("POST", "PUT") else None)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as e:
        return e.code


def reachable(host: str, port: int) -> bool:
    try:
        socket.create_connection((host, port), timeout=3).close()
        return True
    except OSError:
        return False


def test_share_opens_only_the_read_only_class_page(shared_demo):
    lines = shared_demo.splitlines()
    teacher = [line for line in lines if line.startswith("teacher: ")]
    classes = [line for line in lines if line.startswith("class: ")]
    assert len(teacher) == len(classes) == 1, shared_demo
    match = re.fullmatch(r"teacher: http://127\.0\.0\.1:(\d+)/doc/tree/demo\.ipynb\?token=(\w+)", teacher[0])
    assert match, teacher[0]
    port, token = int(match.group(1)), match.group(2)
    class_url = classes[0].removeprefix("class: ")
    class_port = int(re.fullmatch(r"http://[^/]+:(\d+)/", class_url).group(1))
    assert token not in "\n".join(line for line in lines if not line.startswith("teacher: "))

    lab = f"http://127.0.0.1:{port}"
    auth = {"Authorization": f"token {token}"}
    assert status(f"{lab}/api/kernels", headers=auth) == 200      # the teacher's token works
    assert not 200 <= status(f"{lab}/api/terminals", "POST", auth) < 300  # but there are no terminals
    assert not 200 <= status(f"{lab}/api/terminals", headers=auth) < 300
    assert status(f"{lab}/api/kernels") == 403                     # and nothing works without it

    here = f"http://127.0.0.1:{class_port}"
    assert status(here + "/") == 200
    for path in ("/api/kernels", "/api/terminals", "/api/contents", "/lab", "/files/", "/tree", "/api/status"):
        for method in ("GET", "POST"):
            assert not 200 <= status(here + path, method, auth) < 300, (method, path)
    conn = http.client.HTTPConnection("127.0.0.1", class_port, timeout=5)
    conn.request("GET", "/events")
    stream = conn.getresponse().read1(65536).decode()
    conn.close()
    for path in ("/", "/demo/static/class.js", "/demo/static/class_page.js", "/demo/static/class.css",
                 "/views/js/pool_patch.js"):
        with urllib.request.urlopen(here + path, timeout=10) as response:
            assert token not in response.read().decode(), path
    assert token not in stream

    address = lan_address()
    if address is None:
        pytest.skip("no network address besides loopback here: cannot check what the network sees")
    assert reachable(address, class_port)       # shared: the class page
    assert not reachable(address, port)         # never the teacher's lab
