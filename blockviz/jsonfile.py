"""Reading JSON with errors that say where. Every loader of a JSON file reads through here (demo
settings, a model's config.json, a lab recording, a trace and each of its lines, lesson 10's recorded
vLLM runs), so each error names the file, the line (of a syntax error; a JSON Lines loader names
the record's line in `where`) and the field (of a value of the wrong type, as msgspec's path
`$.config.block_size`), in the loader's own error class."""
import re
from pathlib import Path
from typing import Any

import msgspec

AT_BYTE = re.compile(r"\s*\(byte (\d+)\)$")   # how msgspec ends a syntax error


def decode_json(text: str | bytes, kind: Any = Any, where: str = "JSON", error: type[Exception] = ValueError):
    """`text` as `kind` (a msgspec Struct, a dataclass, dict, list, ...; Any: as JSON has it)."""
    try:
        return msgspec.json.decode(text, type=kind)
    except msgspec.ValidationError as e:   # "Expected `int`, got `str` - at `$.config.block_size`"
        raise error(f"{where}: {e}") from None
    except msgspec.DecodeError as e:
        raise error(f"{where}: not valid JSON ({position(text, str(e))})") from None
    except RecursionError:
        raise error(f"{where}: nested too deeply") from None


def position(text: str | bytes, message: str) -> str:
    """msgspec's syntax error with its byte offset told as a line and a column (a column alone in
    one line of text)."""
    found = AT_BYTE.search(message)
    if found is None:
        return message
    raw = text.encode("utf-8") if isinstance(text, str) else text
    offset = int(found.group(1))
    start = raw.rfind(b"\n", 0, offset) + 1
    place = f"column {len(raw[start:offset].decode('utf-8', 'replace')) + 1}"
    if b"\n" in raw.rstrip(b"\n"):
        line = raw.count(b"\n", 0, offset) + 1
        place = f"line {line}, {place}"
    return f"{place}: {message[:found.start()]}"


def read_json(path: str | Path, kind: Any = Any, error: type[Exception] = ValueError):
    """The JSON file at `path` as `kind`; every error is `error`, naming the file."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise error(f"{path}: no such file") from None
    except IsADirectoryError:
        raise error(f"{path}: is a folder, not a file") from None
    except OSError as e:
        raise error(f"{path}: cannot be read ({e.strerror})") from None
    return decode_json(raw, kind, str(path), error)
