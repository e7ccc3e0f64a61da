"""A stand-in for vLLM's python, for the tests of starting and stopping servers without vLLM."""
import sys
from pathlib import Path

FAKE_VLLM = """#!{python}
# Stands in for vLLM's python: serves /health on --port (exits at once on port {fail}) with an
# "engine" child, as vLLM has, whose pid it writes to {pids}/PORT.
import http.server, subprocess, sys
port = int(sys.argv[sys.argv.index("--port") + 1])
if port == {fail}:
    sys.exit(3)
engine = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
open(f"{pids}/{{port}}", "w").write(str(engine.pid))
class Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
    def log_message(self, *args):
        pass
http.server.HTTPServer(("127.0.0.1", port), Health).serve_forever()
"""


def fake_vllm(tmp_path, fail: int = 0):
    fake, pids = tmp_path / "python", tmp_path / "pids"
    pids.mkdir()
    fake.write_text(FAKE_VLLM.format(python=sys.executable, pids=pids, fail=fail))
    fake.chmod(0o755)
    return fake, pids


def running(pid: int) -> bool:
    """Still a live process (a zombie waiting to be reaped is not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
