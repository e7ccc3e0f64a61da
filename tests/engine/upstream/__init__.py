"""nano-vllm's own files at the commit blockviz's engine matches, pinned for the tests.

Copied unchanged from github.com/GeeeekExplorer/nano-vllm at COMMIT (MIT licence, LICENSE beside
this file), under their paths in that repository. tests/engine/test_upstream_text.py diffs blockviz's
copies against them; tests/engine/test_scheduler.py runs them as the reference engine.
"""
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from blockviz.config import Config
from blockviz.engine import sequence

COMMIT = "bb823b3e06983d71485a8e1f23715ebd87d98ef8"  # the chunked-prefill HEAD
ROOT = Path(__file__).parent


def text(path: str) -> str:
    """The pinned file at `path` (as in nano-vllm's repository, e.g. "nanovllm/engine/scheduler.py")."""
    return (ROOT / path).read_text(encoding="utf-8")


def run(path: str, imports: dict[str, ModuleType]) -> ModuleType:
    """Execute the pinned file as it is, its `from nanovllm.X import ...` lines answered by `imports`."""
    name = "upstream." + path.removesuffix(".py").replace("/", ".")
    spec = importlib.util.spec_from_file_location(name, ROOT / path)
    module = importlib.util.module_from_spec(spec)
    saved = {key: sys.modules.get(key) for key in imports}
    sys.modules.update(imports)
    try:
        spec.loader.exec_module(module)
    finally:
        for key, value in saved.items():
            if value is None:
                del sys.modules[key]
            else:
                sys.modules[key] = value
    return module


def reference_scheduler() -> type:
    """nano-vllm's Scheduler over its BlockManager, its own code, driving blockviz's Config and
    Sequence (so the two engines' requests carry the same SequenceStatus)."""
    config = ModuleType("nanovllm.config")
    config.Config = Config
    block_manager = run("nanovllm/engine/block_manager.py", {"nanovllm.engine.sequence": sequence})
    scheduler = run("nanovllm/engine/scheduler.py", {"nanovllm.config": config, "nanovllm.engine.sequence": sequence,
                                                     "nanovllm.engine.block_manager": block_manager})
    return scheduler.Scheduler
