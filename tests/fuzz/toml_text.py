"""Write TOML from Python values, for the scenario fuzz test (the standard library only reads TOML)."""
import json
import math


def string(s: str) -> str:
    # JSON's escapes are TOML basic-string escapes; TOML also wants DEL escaped
    return json.dumps(s, ensure_ascii=False).replace("\x7f", "\\u007f")


def value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v == math.inf else "-inf" if v == -math.inf else repr(v))
    if isinstance(v, str):
        return string(v)
    if isinstance(v, list):
        return "[" + ", ".join(value(item) for item in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{string(k)} = {value(item)}" for k, item in v.items()) + "}"
    raise TypeError(type(v))


def document(top: dict, requests: list[dict]) -> str:
    lines = [f"{string(k)} = {value(v)}" for k, v in top.items()]
    for request in requests:
        lines.append("[[requests]]")
        lines += [f"{string(k)} = {value(v)}" for k, v in request.items()]
    return "\n".join(lines) + "\n"
