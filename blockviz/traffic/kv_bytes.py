"""The engine's own kv_bytes_per_block, run without importing torch (2.6 s of a 4 s command).

blockviz/engine/model_runner.py (nano-vllm's file, never edited) defines kv_bytes_per_block beside
the model runner, so importing it imports torch, the model and its layers. The function asks torch
one thing: the width of a dtype (`torch.empty((), dtype=dtype).element_size()`). So this module
compiles that one function from the engine's source file, as written there (no copy of its
formula), and runs it with a stand-in for torch that answers that question from the dtype's name
(float32: 4 bytes, bfloat16 and float16: 2). A function that asked torch anything else would fail
here (AttributeError), and tests/traffic/test_kv_bytes.py checks it against the torch import for
every dtype and the shipped models.
"""
import ast
import importlib.util
import re
from functools import cache
from typing import Callable

from blockviz.models.config import DTYPE_NAMES, Qwen3Config, head_dim_of

ENGINE_MODULE = "blockviz.engine.model_runner"
FUNCTION = "kv_bytes_per_block"


class DtypeWidth:
    """An empty tensor of a dtype named as torch names it, as far as element_size goes."""

    def __init__(self, dtype: str):
        if dtype not in DTYPE_NAMES:
            raise ValueError(f"dtype must be one of {', '.join(DTYPE_NAMES)}, got {dtype!r}")
        self.bits = int(re.search(r"\d+$", dtype).group())   # torch's float dtypes end in their width

    def element_size(self) -> int:
        return self.bits // 8


class TorchWidths:
    """The torch the engine's function sees: dtypes by name, and an empty tensor's element_size."""
    dtype = str   # the annotation `dtype: torch.dtype`

    @staticmethod
    def empty(shape: tuple, dtype: str) -> DtypeWidth:
        return DtypeWidth(dtype)


@cache
def engine_kv_bytes_per_block() -> Callable[[Qwen3Config, int, str], int]:
    """kv_bytes_per_block(hf_config, block_size, dtype name), compiled from the engine's file."""
    path = importlib.util.find_spec(ENGINE_MODULE).origin   # found, not imported
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    found = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == FUNCTION]
    if len(found) != 1:
        raise RuntimeError(f"{path} no longer defines {FUNCTION} once at the top level")
    namespace = {"torch": TorchWidths, "Qwen3Config": Qwen3Config, "head_dim_of": head_dim_of}
    exec(compile(ast.Module(body=found, type_ignores=[]), path, "exec"), namespace)   # line numbers: the engine's
    return namespace[FUNCTION]
