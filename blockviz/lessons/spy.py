"""Watching the engine work without changing what it does: log the calls of some methods, collect
what a method returns."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterable


@contextmanager
def record_calls(obj, names: Iterable[str], log: list | None = None):
    """Log every call of these methods of `obj` (an instance) in order, without changing what they do."""
    log = [] if log is None else log
    originals = {}
    for name in names:
        method = getattr(obj, name)
        originals[name] = method

        def wrapper(*args, _name=name, _method=method, **kwargs):
            log.append(_name)
            return _method(*args, **kwargs)
        setattr(obj, name, wrapper)
    try:
        yield log
    finally:
        for name in originals:
            delattr(obj, name)  # the class's method shows through again


@contextmanager
def capture(obj, name: str):
    """While inside, collect what every call of `obj.name` (an instance's method) returns; the method runs unchanged."""
    results = []
    method = getattr(obj, name)

    def wrapper(*args, **kwargs):
        result = method(*args, **kwargs)
        results.append(result)
        return result
    setattr(obj, name, wrapper)
    try:
        yield results
    finally:
        delattr(obj, name)  # the class's method shows through again


def compress(names: list[str]) -> list[tuple[str, int]]:
    """[a, a, b, a] -> [(a, 2), (b, 1), (a, 1)]"""
    out: list[tuple[str, int]] = []
    for name in names:
        if out and out[-1][0] == name:
            out[-1] = (name, out[-1][1] + 1)
        else:
            out.append((name, 1))
    return out

