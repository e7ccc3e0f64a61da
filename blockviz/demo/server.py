"""`blockviz demo`: write the demo notebook into a working folder, serve it to the teacher with
JupyterLab, and serve the read-only class page (classroom.py) from this process.

The folder holds the notebook (demo.ipynb), the settings it reads (blockviz-demo.json, found through
$BLOCKVIZ_DEMO_SETTINGS), JupyterLab's own config and settings (so a user's config cannot change the
demo), and a tiny prebuilt JupyterLab extension that runs a notebook marked {"blockviz": {"autorun":
true}} as soon as its kernel is ready, so the dashboard appears without pressing anything.

Two pages, two ports. The teacher's JupyterLab listens on 127.0.0.1 only, with a fresh random token
(passed through the environment, not the command line, so other users cannot read it with `ps`) and
terminals disabled. The class page listens on 127.0.0.1 too unless --ip or --share opens it to the
network: it runs no code and serves no files, so sharing it gives a class nothing but the page. The
teacher's kernel reaches the class server on 127.0.0.1 with a key of its own ($BLOCKVIZ_CLASS_KEY).
"""
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import webbrowser
from pathlib import Path

import nbformat

from blockviz.demo.classroom import ClassServer
from blockviz.demo.link import KEY_ENV, PAGE_ENV, URL_ENV
from blockviz.demo.settings import SETTINGS_ENV, SETTINGS_FILE, DemoError, DemoSettings, Plan
from blockviz.i18n import t

NOTEBOOK = "demo.ipynb"
EXTENSION = "blockviz-demo"
START_TIMEOUT = 120  # seconds for JupyterLab to answer

CELL = """\
# The options of `blockviz demo`, read from $BLOCKVIZ_DEMO_SETTINGS (blockviz-demo.json beside this notebook)
from blockviz.demo import Demo
demo = Demo.from_settings()
demo"""

# A prebuilt (federated) JupyterLab extension without a build step: no shared modules, one plugin that
# uses only the application object. When a notebook whose metadata has blockviz.autorun becomes current,
# it waits for the kernel and runs every cell once.
AUTORUN_JS = """\
var _JUPYTERLAB;
(function () {
  "use strict";
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const plugin = {
    id: "blockviz-demo:autorun",
    description: "Runs the blockviz demo notebook once its kernel is ready.",
    autoStart: true,
    activate: (app) => {
      const started = new WeakSet();
      const check = async () => {
        const panel = app.shell.currentWidget;
        if (!panel || started.has(panel) || !panel.context || !panel.sessionContext || !panel.content) return;
        await panel.context.ready;
        const model = panel.content.model;
        const meta = model && (model.getMetadata ? model.getMetadata("blockviz") : (model.metadata || {}).blockviz);
        if (!meta || !meta.autorun || started.has(panel)) return;
        started.add(panel);
        if (app.shell.collapseLeft) app.shell.collapseLeft();
        await panel.sessionContext.ready;
        for (let i = 0; i < 1200 && !panel.sessionContext.isReady; i++) await sleep(100);
        if (app.shell.currentWidget !== panel) app.shell.activateById(panel.id);
        await app.commands.execute("notebook:run-all-cells");
      };
      app.restored.then(() => {
        if (app.shell.currentChanged) app.shell.currentChanged.connect(() => { check(); });
        check();
      });
    },
  };
  _JUPYTERLAB = typeof _JUPYTERLAB === "undefined" ? {} : _JUPYTERLAB;
  _JUPYTERLAB["blockviz-demo"] = {
    init: () => Promise.resolve(),
    get: (module) => Promise.resolve(() => ({ __esModule: true, default: [plugin] })),
  };
})();
"""


def write_notebook(path: Path, lang: str) -> Path:
    code = nbformat.v4.new_code_cell(CELL, metadata={"jupyter": {"source_hidden": True}})
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell(t("demo.notebook.title", lang) + "\n\n" + t("demo.notebook.help", lang)),
        code,
    ])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.metadata["language_info"] = {"name": "python"}
    notebook.metadata["blockviz"] = {"autorun": True}
    nbformat.write(notebook, path)
    return path


def write_workdir(settings: DemoSettings, workdir: Path) -> dict[str, Path]:
    """Everything the server and the kernel read, under `workdir`. Returns the paths that matter."""
    workdir.mkdir(parents=True, exist_ok=True)
    jupyter = workdir / ".jupyter"
    ext = jupyter / "labextensions" / EXTENSION
    (ext / "static").mkdir(parents=True, exist_ok=True)
    (ext / "static" / "remoteEntry.js").write_text(AUTORUN_JS, encoding="utf-8")
    (ext / "package.json").write_text(json.dumps({
        "name": EXTENSION, "version": "0.1.0", "description": "runs the blockviz demo notebook on open",
        "jupyterlab": {"_build": {"load": "static/remoteEntry.js", "extension": "./extension"}}}, indent=1))
    user_settings = jupyter / "lab" / "user-settings" / "@jupyterlab"
    for plugin, values in {  # no news pop-ups; no autosave, which would clash when several pages share the notebook
            "apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
            "docmanager-extension/plugin": {"autosave": False}}.items():
        (user_settings / plugin).parent.mkdir(parents=True, exist_ok=True)
        (user_settings / f"{plugin}.jupyterlab-settings").write_text(json.dumps(values))
    config = jupyter / "config"
    config.mkdir(exist_ok=True)
    (config / "jupyter_server_config.json").write_text(json.dumps({
        "LabApp": {"extra_labextensions_path": [str(jupyter / "labextensions")], "extension_manager": "readonly"},
    }, indent=1))
    return {"settings": settings.save(workdir / SETTINGS_FILE), "notebook": write_notebook(workdir / NOTEBOOK, settings.lang),
            "jupyter": jupyter, "log": workdir / "jupyterlab.log"}


def check_address(ip: str, port: int | None) -> int:
    """The port to serve on: `port` if it is free on `ip`, else a free one when port is None."""
    family = socket.AF_INET6 if ":" in ip else socket.AF_INET
    with socket.socket(family) as s:
        try:
            s.bind((ip, port or 0))
        except socket.gaierror:
            raise DemoError(f"--ip {ip}: not an address") from None
        except OSError as e:
            if port and e.errno in (98, 48, 10048):  # EADDRINUSE on Linux, macOS, Windows
                raise DemoError(f"port {port} is already in use on {ip}; choose another with --port") from None
            raise DemoError(f"cannot listen on {ip}:{port or 'a free port'}: {e.strerror or e}") from None
        return s.getsockname()[1]


def lan_address() -> str | None:
    """This machine's address on its default route (a UDP connect sends nothing), or None."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: only picks the outgoing interface
            address = s.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") or address == "0.0.0.0" else address


def teacher_url(port: int, token: str) -> str:
    return f"http://127.0.0.1:{port}/doc/tree/{NOTEBOOK}?token={token}"


def class_urls(ip: str, port: int) -> list[str]:
    """The class page's URLs: for a shared address by LAN address and host name, else the one address."""
    if ip in ("0.0.0.0", "::", ""):
        hosts = [lan_address(), socket.gethostname(), "127.0.0.1"]
        return [f"http://{host}:{port}/" for host in dict.fromkeys(h for h in hosts if h)]
    host = f"[{ip}]" if ":" in ip else ip
    return [f"http://{host}:{port}/"]


def wait_until_ready(server: subprocess.Popen, base: str, token: str, log: Path):
    deadline = time.monotonic() + START_TIMEOUT
    request = urllib.request.Request(f"{base}/api/status", headers={"Authorization": f"token {token}"})
    while True:
        try:
            urllib.request.urlopen(request, timeout=2)
            return
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                tail = log.read_text(errors="replace")[-3000:] if log.exists() else ""
                raise DemoError(f"JupyterLab did not start (log: {log}):\n{tail}")
            time.sleep(0.3)


def serve(settings: DemoSettings, ip: str = "127.0.0.1", port: int | None = None, open_browser: bool = True,
          workdir: str | Path | None = None, plan: Plan | None = None, class_port: int | None = None,
          out=sys.stdout) -> int:
    """Check the settings, write the demo folder, serve the class page (on `ip`, `class_port`) and
    the teacher's JupyterLab (on 127.0.0.1, `port`) until Ctrl+C (or SIGTERM)."""
    plan = plan or settings.resolve()
    if port is not None and port == class_port:
        raise DemoError(f"--port and --class-port are both {port}: the teacher's page and the class page need two ports")
    port = check_address("127.0.0.1", port)
    class_port = check_address(ip, class_port)
    made_workdir = workdir is None
    workdir = Path(tempfile.mkdtemp(prefix="blockviz-demo-") if workdir is None else workdir).resolve()
    paths = write_workdir(settings, workdir)
    token, key = secrets.token_hex(24), secrets.token_hex(24)
    classroom = ClassServer(settings.lang, key, ip, class_port).start()
    jupyter = paths["jupyter"]
    env = {**os.environ, SETTINGS_ENV: str(paths["settings"]), "JUPYTER_TOKEN": token,
           URL_ENV: classroom.publish_url, KEY_ENV: key, PAGE_ENV: class_urls(ip, classroom.port)[0],
           "JUPYTER_CONFIG_DIR": str(jupyter / "config"), "JUPYTER_RUNTIME_DIR": str(jupyter / "runtime"),
           "JUPYTERLAB_SETTINGS_DIR": str(jupyter / "lab" / "user-settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(jupyter / "lab" / "workspaces")}
    env.pop("JUPYTER_TOKEN_FILE", None)
    command = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
               f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--ServerApp.root_dir={workdir}",
               "--ServerApp.allow_root=True", "--ServerApp.terminals_enabled=False"]
    with open(paths["log"], "w") as log:
        # its own session: Ctrl+C reaches only this process, which then stops the server cleanly
        server = subprocess.Popen(command, cwd=workdir, env=env, stdin=subprocess.DEVNULL, stdout=log,
                                  stderr=subprocess.STDOUT, start_new_session=True)
    previous = signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        wait_until_ready(server, f"http://127.0.0.1:{port}", token, paths["log"])
        teacher, classes = teacher_url(port, token), class_urls(ip, classroom.port)
        print(f"blockviz demo: {plan.describe()}", file=out)
        print(f"folder: {workdir} (JupyterLab log: {paths['log'].name})", file=out)
        print(f"teacher: {teacher}", file=out)
        print(f"class: {classes[0]}", file=out)
        for other in classes[1:]:
            print(f"    (the class page also answers at {other})", file=out)
        if ip in ("127.0.0.1", "localhost", "::1"):
            print("the class page is on this machine only; --share opens it (and only it) to the network", file=out)
        else:
            print("the class page is open to the network: read-only, no code, no files; the teacher's page "
                  "(with its token) stays on 127.0.0.1: keep it to yourself", file=out)
        print("press Ctrl+C to stop", file=out, flush=True)
        if open_browser:
            webbrowser.open(teacher)
        return server.wait()
    except KeyboardInterrupt:
        print("\nstopping", file=out, flush=True)
        return 0
    finally:
        signal.signal(signal.SIGTERM, previous)
        if server.poll() is None:
            server.terminate()  # jupyter_server stops on SIGTERM and shuts its kernels down
            try:
                server.wait(20)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        classroom.stop()
        if made_workdir:
            shutil.rmtree(workdir, ignore_errors=True)
