"""Start a real vLLM OpenAI-compatible server with prefix caching and KV events on.

vLLM runs in its own environment and process (.venv-vllm, made by scripts/vllm_env.sh), as in
production; blockviz only talks to it over HTTP and ZMQ. The server and the engine process it
spawns share a new process group, so stopping the group leaves nothing behind.
"""
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from blockviz.models import DEFAULT_MODEL_DIR
from blockviz.vllm.client import Client
from blockviz.vllm.endpoints import check_endpoint, default_replay

REPO = Path(__file__).resolve().parents[2]
PROJECT_VLLM_PYTHON = REPO / ".venv-vllm" / "bin" / "python"
GUARD = Path(__file__).with_name("guard.py")
MAKE_ENV = "bash scripts/vllm_env.sh"
ENV_COST = "about 3.4 GB and 4 minutes, once"
VLLM_VERSION_TESTED = "0.32.0"


class ServeError(RuntimeError):
    pass


def find_vllm_python(python: str | Path | None = None) -> Path:
    """The python that runs vLLM: the one given, else the project's .venv-vllm."""
    if python is not None:
        path = Path(python)
        if not path.is_file():
            raise ServeError(f"--vllm-python {path}: no such file (give the python of an environment with vllm)")
        return path
    if not PROJECT_VLLM_PYTHON.is_file():
        raise ServeError(f"vLLM is not installed for blockviz. Create its environment with `{MAKE_ENV}` "
                         f"(in {REPO}; {ENV_COST}), or give --vllm-python, the python of an existing vLLM.")
    return PROJECT_VLLM_PYTHON


@dataclass
class ServerSettings:
    model: str | Path | None = None      # None: the embedded model
    port: int = 8000
    host: str = "127.0.0.1"
    events: str = "tcp://127.0.0.1:5557"
    replay: str | None = None            # None: the events port + 1
    topic: str = ""
    blocks: int | None = None            # override the pool (small, so eviction shows)
    block_size: int = 32                 # vLLM's CPU attention takes multiples of 32 only
    max_model_len: int | None = None
    dtype: str | None = None
    vllm_python: str | Path | None = None
    dev_mode: bool = False               # /reset_prefix_cache and vLLM's other development endpoints
    extra: list[str] = field(default_factory=list)

    @property
    def replay_endpoint(self) -> str:
        return self.replay or default_replay(self.events)

    @property
    def api(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def uses_project_env(self) -> bool:
        return self.vllm_python is None


def kv_events_config(settings: ServerSettings) -> dict:
    return {"enable_kv_cache_events": True, "publisher": "zmq", "endpoint": check_endpoint(settings.events),
            "replay_endpoint": check_endpoint(settings.replay_endpoint), "topic": settings.topic}


def command(settings: ServerSettings) -> list[str]:
    model = settings.model or DEFAULT_MODEL_DIR   # a folder, or a name vLLM resolves itself
    cmd = [str(find_vllm_python(settings.vllm_python)), "-m", "vllm.entrypoints.openai.api_server",
           "--model", str(model), "--host", settings.host, "--port", str(settings.port),
           "--block-size", str(settings.block_size), "--enable-prefix-caching", "--enable-prompt-tokens-details",
           "--kv-events-config", json.dumps(kv_events_config(settings))]
    if settings.blocks is not None:
        if settings.blocks < 2:
            raise ServeError(f"--blocks {settings.blocks}: vLLM needs at least 2 (one is its null block)")
        cmd += ["--num-gpu-blocks-override", str(settings.blocks)]
    embedded = settings.model is None
    dtype = settings.dtype or ("float32" if embedded else None)
    if dtype:
        cmd += ["--dtype", dtype]
    max_len = settings.max_model_len or (512 if embedded else None)
    if settings.blocks is not None:   # vLLM refuses a pool that cannot hold one request of max_model_len
        fits = (settings.blocks - 1) * settings.block_size   # one block is vLLM's null block
        if settings.max_model_len and settings.max_model_len > fits:
            raise ServeError(f"--max-model-len {settings.max_model_len} does not fit in {settings.blocks} blocks of "
                             f"{settings.block_size} ({fits} tokens once vLLM keeps its null block)")
        max_len = min(max_len or fits, fits)
    if max_len:
        cmd += ["--max-model-len", str(max_len)]
    if settings.uses_project_env:   # the CPU build: no compile step, a few sequences at a time
        cmd += ["--enforce-eager", "--max-num-seqs", "4"]
    return cmd + list(settings.extra)


def environment(settings: ServerSettings) -> dict[str, str]:
    env = dict(os.environ)
    if settings.uses_project_env:
        env.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")   # GiB of host memory for the pool (else vLLM takes 4+)
        env.setdefault("OMP_NUM_THREADS", str(min(4, os.cpu_count() or 1)))
    if settings.dev_mode:
        env["VLLM_SERVER_DEV_MODE"] = "1"
    return env


class Server:
    """A vLLM server process: start(), wait_ready(), stop(); a context manager."""

    def __init__(self, settings: ServerSettings, log: str | Path | None = None):
        self.settings = settings
        self.log_path = Path(log) if log else None
        self.process: subprocess.Popen | None = None
        self.client = Client(settings.api)

    def start(self) -> "Server":
        cmd, env = command(self.settings), environment(self.settings)
        if sys.platform == "linux":  # stop with the process that started it, even one killed outright
            cmd = [sys.executable, str(GUARD), str(os.getpid()), *cmd]
        out = open(self.log_path, "wb") if self.log_path else None
        self.process = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                        stderr=subprocess.STDOUT if out else None, start_new_session=True)
        if out:
            out.close()
        return self

    def wait_ready(self, timeout: float = 600.0) -> "Server":
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ServeError(f"vLLM exited with code {self.process.returncode} before it served"
                                 + (f"; its log: {self.log_path}" if self.log_path else ""))
            if self.client.ready():
                return self
            time.sleep(0.5)
        self.stop()
        raise ServeError(f"vLLM did not serve within {timeout:g} s")

    def stop(self, grace: float = 20.0):
        """SIGINT to the whole process group (vLLM shuts its engine down), then SIGKILL after `grace`."""
        if self.process is None or self.process.poll() is not None and not _group_alive(self.process.pid):
            return
        for sig, wait in ((signal.SIGINT, grace), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(self.process.pid, sig)
            except ProcessLookupError:
                break
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline and _group_alive(self.process.pid):
                self.process.poll()
                time.sleep(0.1)
            if not _group_alive(self.process.pid):
                break
        self.process.wait(timeout=5)

    def exited(self) -> str | None:
        """None while vLLM runs, else what happened to it."""
        if self.process is None or self.process.poll() is None:
            return None
        return f"vLLM exited with code {self.process.returncode}"

    def __enter__(self) -> "Server":
        return self.start().wait_ready()

    def __exit__(self, *exc):
        self.stop()


def _group_alive(pgid: int) -> bool:
    """Any process of the group still running (zombies waiting to be reaped do not count)."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                return True
    return False
