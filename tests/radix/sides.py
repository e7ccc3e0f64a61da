"""A .venv-sglang process running SGLang's RadixCache (sglang_side.py), and blockviz's RadixCache
run through the same driver, for the differential test and bench/radix_vs_sglang.py."""
import json
import os
import subprocess
from array import array
from pathlib import Path
from types import SimpleNamespace

from blockviz.radix.base_prefix_cache import EvictParams, InsertParams, MatchPrefixParams
from blockviz.radix.cache_init_params import CacheInitParams
from blockviz.radix.radix_cache import RadixCache, RadixKey

from tests.radix import drive

ROOT = Path(__file__).resolve().parents[2]
SGLANG_PYTHON = ROOT / ".venv-sglang" / "bin" / "python"
MAKE_ENV = "bash scripts/sglang_env.sh"
SIDE = Path(__file__).with_name("sglang_side.py")

BLOCKVIZ = SimpleNamespace(RadixCache=RadixCache, RadixKey=RadixKey, CacheInitParams=CacheInitParams,
                           InsertParams=InsertParams, MatchPrefixParams=MatchPrefixParams,
                           EvictParams=EvictParams, tokens=lambda ids: array("q", ids),
                           values=lambda ids: array("q", ids))


def blockviz_run(stream: dict) -> dict:
    try:
        return {"seen": drive.run(BLOCKVIZ, stream)}
    except Exception as error:
        return {"error": f"{type(error).__name__}: {error}"}


class SGLang:
    """SGLang's side: one process, one stream a line. Use as a context manager."""

    def __init__(self, python: Path = SGLANG_PYTHON, plain_import: bool = False):
        cmd = [str(python), str(SIDE)] + (["--plain-import"] if plain_import else [])
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        self.process = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                        cwd=SIDE.parent, env=env)
        ready = self.process.stdout.readline()
        if not ready:
            raise RuntimeError(f"{cmd} ended before it was ready (exit {self.process.wait()})")
        self.module_file = json.loads(ready)["ready"]

    def run(self, stream: dict) -> dict:
        self.process.stdin.write(json.dumps(stream) + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=60)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def first_difference(stream: dict, ours: dict, theirs: dict) -> str | None:
    """None when both sides saw the same after every operation, else where they first parted."""
    if "error" in ours or "error" in theirs:
        return None if ours.get("error") == theirs.get("error") else f"errors: {ours.get('error')} / {theirs.get('error')}"
    for i, (a, b) in enumerate(zip(ours["seen"], theirs["seen"])):
        if a != b:
            keys = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
            return f"after op {i} {stream['ops'][i]}: {keys} differ: blockviz {[a.get(k) for k in keys]} sglang {[b.get(k) for k in keys]}"
    return None if len(ours["seen"]) == len(theirs["seen"]) else "different numbers of observations"
