"""Argument checks run before an engine changes: a bad value raises ValueError naming the value and
what is allowed, and nothing has been added, allocated or counted yet.

nano-vllm trusts its caller (an assert, or a failure several steps later); blockviz is driven by
learners typing into notebooks, scenario files and exercise ids, so Config, SamplingParams, the
Simulator, the LLM and Session.add_sequence call these first. The faithful core stays as it is.

Size limits (documented in docs/ARCHITECTURE.md) keep every run within seconds on a laptop.
"""
import array
import math
from numbers import Integral, Real
from typing import Any

import numpy as np
from blockviz.brief import brief

# A Simulator pool: building 131 072 blocks takes about 0.8 s, a million about 7 s. Serving traces
# (blockviz.traffic) replay pools of 50M tokens at block size 16: 3.1M blocks.
MAX_SIM_BLOCKS = 4_194_304
# Token ids the Simulator takes: int32 like a tokenizer's vocabulary (code points are < 0x110000).
# compute_hash packs ids with numpy: ids >= 2**63 would be hashed as object pointers.
MAX_TOKEN_ID = 2**31 - 1
# Requests (prompt + max_tokens) in a Simulator: Config.max_model_len, at most this (the Mooncake
# traces' longest request is 191 386 tokens).
MAX_SIM_MODEL_LEN = 262_144
MAX_LABEL_LENGTH = 40


def whole(name: str, value: Any, low: int | None = None, high: int | None = None) -> int:
    """An integer (not a bool, not 2.0) in low..high."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise ValueError(f"{name} must be a whole number{span(low, high)}, got {brief(value, 80)} ({type(value).__name__})")
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{name} must be a whole number{span(low, high)}, got {value}")
    return value


def span(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f" in {low}..{high}"
    if low is not None:
        return f" >= {low}"
    if high is not None:
        return f" <= {high}"
    return ""


def real(name: str, value: Any, low: float, high: float, low_open: bool = False) -> float:
    """A finite real number (not a bool) in [low, high], or (low, high] with low_open."""
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise ValueError(f"{name} must be a number, got {brief(value, 80)}")
    value = float(value)
    if value < low or value > high or (low_open and value == low):
        interval = f"({low}, {high}]" if low_open else f"[{low}, {high}]"
        raise ValueError(f"{name} must be in {interval}, got {value}")
    return value


def flag(name: str, value: Any) -> bool:
    """True or False, nothing truthy: ignore_eos='no' would otherwise mean yes."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {brief(value, 80)}")
    return bool(value)


def token_ids(name: str, ids: Any, vocab_size: int | None = None, allow_empty: bool = False) -> list[int]:
    """A list of token ids in 0..vocab_size-1 (0..MAX_TOKEN_ID without a vocabulary), not empty unless allowed."""
    if isinstance(ids, (str, bytes)) or not hasattr(ids, "__iter__"):
        raise ValueError(f"{name} must be text or a list of token ids, got {brief(ids, 80)}")
    if is_id_array(ids):
        return token_array(name, ids, vocab_size, allow_empty).tolist()
    ids = list(ids)
    if not ids and not allow_empty:
        raise ValueError(f"{name} is empty: a request needs at least one token")
    high = MAX_TOKEN_ID if vocab_size is None else vocab_size - 1
    if not ids or in_range(ids, high):
        return ids
    for i, t in enumerate(ids):
        if isinstance(t, bool) or not isinstance(t, Integral) or not 0 <= t <= high:
            where = f"the model's vocabulary has {vocab_size} ids" if vocab_size is not None else "ids are int32"
            raise ValueError(f"{name}[{i}] = {brief(t, 40)} is not a token id: ids are whole numbers in 0..{high} ({where})")
    return [int(t) for t in ids]


def is_id_array(ids: Any) -> bool:
    return isinstance(ids, np.ndarray) and ids.ndim == 1 and ids.dtype.kind in "iu"


def token_array(name: str, ids: np.ndarray, vocab_size: int | None = None, allow_empty: bool = False) -> np.ndarray:
    """token_ids for a 1-D integer array, checked in two vectorized passes (a trace's prompts); the
    same errors, naming the first bad id."""
    if not is_id_array(ids):
        raise ValueError(f"{name} must be a 1-D array of integer token ids, got {brief(ids, 80)}")
    high = MAX_TOKEN_ID if vocab_size is None else vocab_size - 1
    if len(ids) and not (0 <= ids.min() and ids.max() <= high):
        token_ids(name, ids.tolist(), vocab_size, allow_empty)   # raises, naming the id
    elif not len(ids) and not allow_empty:
        raise ValueError(f"{name} is empty: a request needs at least one token")
    return ids


def in_range(ids: list, high: int) -> bool:
    """The common case, plain ints in 0..high, in C loops (a replayed trace checks 145M tokens):
    the types at once, then the values packed as int64 (OverflowError: too big for any id)."""
    if set(map(type, ids)) != {int}:
        return False
    try:
        packed = np.frombuffer(array.array("q", ids), dtype=np.int64)
    except OverflowError:
        return False
    return 0 <= packed.min() and packed.max() <= high


def label(value: Any) -> str | None:
    """A request's name in views: None (A, B, ... are given) or short one-line text."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_LABEL_LENGTH or not value.isprintable():
        raise ValueError(f"a request label must be printable one-line text of 1..{MAX_LABEL_LENGTH} characters, "
                         f"got {brief(value, 80)}")
    return value


def request_length(num_prompt_tokens: int, max_tokens: int, max_model_len: int):
    """nano-vllm's max_model_len, checked at the door instead of failing inside the model."""
    if num_prompt_tokens > max_model_len:
        raise ValueError(f"the prompt has {num_prompt_tokens} tokens, more than max_model_len={max_model_len}")
    longest = num_prompt_tokens + max_tokens
    if longest > max_model_len:
        raise ValueError(f"prompt ({num_prompt_tokens}) + max_tokens ({max_tokens}) = {longest} "
                         f"exceeds max_model_len={max_model_len}")


def one_of(name: str, value: Any, allowed: tuple) -> Any:
    if not isinstance(value, str | None) or value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {brief(value, 80)}")
    return value

