"""Reading a request trace: Mooncake's JSON-lines format (also aiperf's and Dynamo's), plain or
gzipped, every line checked before anything is returned.

One JSON object a line: `timestamp` (ms since the first request, non-decreasing), `input_length`
(prompt tokens, >= 1), `output_length` (generated tokens, >= 1) and `hash_ids` (one id per
512-token block of the prompt, the last block possibly partial, so len(hash_ids) ==
ceil(input_length / 512); equal ids mean equal prefixes up to and including that block). Other
fields are ignored. A line longer than MAX_LINE_BYTES is refused as soon as that many bytes are
read, so a file with one enormous line fails at once instead of filling memory.
"""
import gzip
import json
import math
from numbers import Integral, Real
from pathlib import Path
from typing import IO, Any

import numpy as np

from blockviz.traffic.trace import HASH_BLOCK, Trace

# 1 MiB: a prompt of 100 000 blocks (51M tokens) fits; the longest shipped line is 2.7 kB
MAX_LINE_BYTES = 1 << 20
MAX_HASH_ID = 2**63 - 1
DATA_DIR = Path(__file__).parent / "data"
SHIPPED = {"conversation": "conversation_trace.jsonl.gz", "synthetic": "synthetic_trace.jsonl.gz"}


class TraceFormatError(ValueError):
    """A trace file that cannot be read: the message names the file, the line and the field."""


def load(name_or_path: str | Path) -> Trace:
    """A shipped trace by name ("conversation", "synthetic": Mooncake, FAST '25) or a trace file.

    >>> trace = load("conversation")
    >>> len(trace)
    12031
    """
    if isinstance(name_or_path, str) and name_or_path in SHIPPED:
        path = DATA_DIR / SHIPPED[name_or_path]
        name = name_or_path
    else:
        path = Path(name_or_path)
        name = path.name
        if not path.is_file():
            shipped = ", ".join(map(repr, SHIPPED))
            raise FileNotFoundError(f"no trace file {str(path)!r} (the shipped traces are {shipped})")
    with opened(path) as f:
        return parse(f, str(path), name)


def opened(path: Path) -> IO[bytes]:
    with open(path, "rb") as f:
        gzipped = f.read(2) == b"\x1f\x8b"
    return gzip.open(path, "rb") if gzipped else open(path, "rb")


def parse(f: IO[bytes], source: str, name: str = "trace") -> Trace:
    """Every line of `f` checked; a TraceFormatError at the first bad one, naming it."""
    timestamps: list[float] = []
    inputs: list[int] = []
    outputs: list[int] = []
    ids: list[int] = []
    offsets = [0]
    number = 0
    while True:
        try:
            raw = f.readline(MAX_LINE_BYTES + 1)
        except (OSError, EOFError) as e:  # a damaged gzip stream
            raise TraceFormatError(f"{source}: after line {number}: the file cannot be read: {e}") from None
        if not raw:
            break
        number += 1
        where = f"{source}: line {number}"
        if len(raw) > MAX_LINE_BYTES:
            raise TraceFormatError(f"{where}: longer than {MAX_LINE_BYTES} bytes (a trace line is one request)")
        if not raw.strip():
            continue
        row = decoded(raw, where)
        timestamp, n_in, n_out, hash_ids = fields(row, where)
        if timestamps and timestamp < timestamps[-1]:
            raise TraceFormatError(f"{where}: field 'timestamp' = {timestamp:g} is before the previous "
                                   f"request's {timestamps[-1]:g}: requests must be in arrival order")
        timestamps.append(timestamp)
        inputs.append(n_in)
        outputs.append(n_out)
        ids.extend(hash_ids)
        offsets.append(len(ids))
    if not inputs:
        raise TraceFormatError(f"{source}: no requests (an empty file)")
    return Trace(name, np.array(timestamps, dtype=np.float64), np.array(inputs, dtype=np.int64),
                 np.array(outputs, dtype=np.int64), np.array(offsets, dtype=np.int64),
                 np.array(ids, dtype=np.int64))


def decoded(raw: bytes, where: str) -> dict:
    try:
        row = json.loads(raw)
    except (ValueError, RecursionError) as e:
        raise TraceFormatError(f"{where}: not JSON ({e})") from None
    if not isinstance(row, dict):
        raise TraceFormatError(f"{where}: a request is a JSON object with timestamp, input_length, "
                               f"output_length and hash_ids, got {type(row).__name__}")
    return row


def fields(row: dict, where: str) -> tuple[float, int, int, list[int]]:
    missing = [k for k in ("timestamp", "input_length", "output_length", "hash_ids") if k not in row]
    if missing:
        raise TraceFormatError(f"{where}: missing field{'s' if len(missing) > 1 else ''} "
                               f"{', '.join(map(repr, missing))} (is this a request trace?)")
    timestamp = row["timestamp"]
    if isinstance(timestamp, bool) or not isinstance(timestamp, Real) or not math.isfinite(timestamp) \
            or timestamp < 0:
        raise TraceFormatError(f"{where}: field 'timestamp' must be a number of ms >= 0, got {timestamp!r:.40}")
    n_in = whole(row["input_length"], "input_length", where)
    n_out = whole(row["output_length"], "output_length", where)
    hash_ids = row["hash_ids"]
    if not isinstance(hash_ids, list):
        raise TraceFormatError(f"{where}: field 'hash_ids' must be a list of block ids, got {hash_ids!r:.40}")
    blocks = -(-n_in // HASH_BLOCK)
    if len(hash_ids) != blocks:
        raise TraceFormatError(f"{where}: field 'hash_ids' has {len(hash_ids)} ids, but input_length {n_in} "
                               f"is {blocks} blocks of {HASH_BLOCK} tokens (ceil({n_in} / {HASH_BLOCK}))")
    if not all(type(h) is int and 0 <= h <= MAX_HASH_ID for h in hash_ids):
        i, h = next((i, h) for i, h in enumerate(hash_ids) if type(h) is not int or not 0 <= h <= MAX_HASH_ID)
        raise TraceFormatError(f"{where}: field 'hash_ids[{i}]' = {h!r:.40} is not a block id "
                               f"(a whole number in 0..2**63-1)")
    return float(timestamp), n_in, n_out, hash_ids


def whole(value: Any, name: str, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1 or value > MAX_HASH_ID:
        raise TraceFormatError(f"{where}: field {name!r} must be a whole number of tokens >= 1, got {value!r:.40}")
    return int(value)
