"""The first check of an exercise's params, shared by every kind: names, types and sizes.

Params come from a shareable id (JSON anyone can edit) or from make(**params), so before a kind
looks at them they must be what it expects: known names, whole numbers where numbers go (not
True, not 2.0), sizes small enough to build in well under a second, and text that cannot become
markup (labels are words, prompt text is letters, digits, spaces and plain punctuation). Each
kind's validate() then checks what only it knows, usually by running the engine.
"""
import re
from typing import Any, Callable

from blockviz.checks import MAX_TOKEN_ID, whole
from blockviz.brief import brief

# Exercises are hand calculations: generated ones use pools of at most 16 blocks and prompts of
# a few dozen tokens. These limits keep any hand-written id fast (a second at most).
MAX_BLOCK_SIZE = 4096   # kv_bytes asks about real pools; the scenario kinds check 256
MAX_SCENARIO_BLOCK_SIZE = 256
MAX_BLOCKS = 256
MAX_TOKENS = 512        # a prompt's length, max_tokens, a budget, num_tokens
MAX_OPS = 32            # setup / then ops
MAX_STEPS = 64          # steps of one ["step", n] op, and of all ops together
MAX_SCENARIO_TOKENS = 1024  # prompt + max_tokens, summed over a scenario's requests
MAX_TEXT = 64           # model, dtype, memory, ask names

LABEL = re.compile(r"\w{1,12}")
PROMPT_TEXT = re.compile(r"[A-Za-z0-9 _.,;:?!'-]*")


def whole_list(name: str, value: Any, low: int, high: int, max_len: int, min_len: int = 1) -> list[int]:
    if not isinstance(value, (list, tuple)) or not min_len <= len(value) <= max_len:
        raise ValueError(f"{name} must be a list of {min_len}..{max_len} whole numbers, got {brief(value, 200)}")
    return [whole(f"{name}[{i}]", v, low, high) for i, v in enumerate(value)]


def label(name: str, value: Any) -> str:
    if not isinstance(value, str) or not LABEL.fullmatch(value):
        raise ValueError(f"{name} must be a request label of 1..12 letters, digits or _ (like A or X2), "
                         f"got {brief(value, 80)}")
    return value


def prompt(name: str, value: Any, allow_empty: bool = False) -> str | list[int]:
    """Text (one token per character) or token ids."""
    if isinstance(value, str):
        if not PROMPT_TEXT.fullmatch(value) or len(value) > MAX_TOKENS or not (value or allow_empty):
            raise ValueError(f"{name} as text must be 1..{MAX_TOKENS} letters, digits, spaces or _ . , ; : ? ! ' - "
                             f"(use a list of token ids for anything else), got {brief(value, 80)}")
        return value
    return whole_list(name, value, 0, MAX_TOKEN_ID, MAX_TOKENS, 0 if allow_empty else 1)


def text(name: str, value: Any) -> str:
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise ValueError(f"{name} must be a short text, got {brief(value, 80)}")
    return value


def ops(name: str, value: Any) -> list:
    """A scenario's ops: ["add", label, prompt, max_tokens(, script)] or ["step"(, n)]."""
    if not isinstance(value, (list, tuple)) or len(value) > MAX_OPS:
        raise ValueError(f"{name} must be a list of at most {MAX_OPS} ops, got {brief(value, 200)}")
    checked = []
    for i, op in enumerate(value):
        where = f"{name}[{i}]"
        if isinstance(op, (list, tuple)) and op and op[0] == "add" and len(op) in (4, 5):
            add = ["add", label(f"{where} label", op[1]), prompt(f"{where} prompt", op[2]),
                   whole(f"{where} max_tokens", op[3], 1, MAX_TOKENS)]
            if len(op) == 5:
                add.append(prompt(f"{where} script", op[4], allow_empty=True))
            checked.append(add)
        elif isinstance(op, (list, tuple)) and op and op[0] == "step" and len(op) in (1, 2):
            checked.append(["step", whole(f"{where} steps", op[1], 1, MAX_STEPS) if len(op) == 2 else 1])
        else:
            raise ValueError(f"{where} must be ['add', label, prompt, max_tokens] (+ script) or ['step', n], "
                             f"got {brief(op, 120)}")
    return checked


def ask(name: str, value: Any) -> str | list[int]:
    """A kind's question: a name (kv_bytes, lifetime, the batch kinds) or block ids (pool kinds)."""
    return text(name, value) if isinstance(value, str) else whole_list(name, value, 0, MAX_BLOCKS - 1, MAX_BLOCKS)


def rule(name: str, value: Any) -> str:
    if value not in ("echo", "count"):
        raise ValueError(f"{name} must be 'echo' or 'count', got {brief(value, 40)}")
    return value


def optional_prompt(name: str, value: Any) -> str | list[int] | None:
    return None if value is None else prompt(name, value)


def prompts(name: str, value: Any) -> list:
    """Earlier requests' prompts, in the order they are served (the recompute kind)."""
    if not isinstance(value, (list, tuple)) or not 1 <= len(value) <= 8:
        raise ValueError(f"{name} must be a list of 1..8 prompts, got {brief(value, 200)}")
    return [prompt(f"{name}[{i}]", p) for i, p in enumerate(value)]


CHECKS: dict[str, Callable[[str, Any], Any]] = {
    "block_size": lambda n, v: whole(n, v, 1, MAX_BLOCK_SIZE),
    "num_blocks": lambda n, v: whole(n, v, 1, MAX_BLOCKS),
    "budget": lambda n, v: whole(n, v, 1, MAX_TOKENS),
    "free_order": lambda n, v: whole_list(n, v, 0, MAX_BLOCKS - 1, MAX_BLOCKS, 0),
    "rule": rule,
    "setup": ops,
    "then": ops,
    "new": prompt,
    "prompt": prompt,
    "earlier": optional_prompt,
    "new_max_tokens": lambda n, v: whole(n, v, 1, MAX_TOKENS),
    "max_tokens": lambda n, v: whole(n, v, 1, MAX_TOKENS),
    "num_tokens": lambda n, v: whole(n, v, 1, MAX_TOKENS),
    "block_table": lambda n, v: whole_list(n, v, 0, MAX_BLOCKS - 1, MAX_TOKENS),
    "position": lambda n, v: whole(n, v, 0, MAX_TOKENS - 1),
    "positions": lambda n, v: whole_list(n, v, 0, MAX_TOKENS - 1, MAX_TOKENS),
    "ask": ask,
    "label": label,
    "model": text,
    "dtype": text,
    "memory": text,
    "recording": text,   # the kinds on real vLLM (kinds/recorded.py) check it names a shipped recording
    "trace": text,       # cache_size: a shipped trace's name (checked by the kind)
    "share": lambda n, v: whole(n, v, 1, 100),
    "gpu": lambda n, v: whole(n, v, 1, 10**12),
    "page_size": lambda n, v: whole(n, v, 1, MAX_SCENARIO_BLOCK_SIZE),   # recompute: SGLang's page
    "requests": prompts,   # recompute: the earlier requests, served one at a time
}
SCENARIO = ("block_size", "num_blocks", "free_order", "budget", "rule", "setup")


def check_params(kind: str, names: tuple[str, ...], params: Any) -> dict:
    """params with every value checked (tuples become lists, as JSON would give them back)."""
    if not isinstance(params, dict):
        raise ValueError(f"{kind}'s params must be a JSON object of {', '.join(names)}, got {brief(params, 120)}")
    unknown = [name for name in params if name not in names]
    if unknown:
        raise ValueError(f"{kind} takes no param {brief(unknown[0], 40)}; its params are {', '.join(names)}")
    checked = {name: CHECKS[name](name, value) for name, value in params.items()}
    scenario_ops = checked.get("setup", []) + checked.get("then", [])
    tokens = sum(len(op[2]) + op[3] for op in scenario_ops if op[0] == "add")
    steps = sum(op[1] for op in scenario_ops if op[0] == "step")
    if tokens > MAX_SCENARIO_TOKENS or steps > MAX_STEPS:
        raise ValueError(f"the scenario is too big for an exercise: {tokens} tokens (prompts + max_tokens, at most "
                         f"{MAX_SCENARIO_TOKENS}) and {steps} steps (at most {MAX_STEPS})")
    if checked.get("block_size", 0) > MAX_SCENARIO_BLOCK_SIZE and "setup" in names:
        raise ValueError(f"block_size must be a whole number in 1..{MAX_SCENARIO_BLOCK_SIZE} here, "
                         f"got {checked['block_size']}")
    return checked
