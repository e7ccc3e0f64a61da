"""A logical clock, imported as `time` by radix_cache.py in place of the time module.

SGLang stamps tree nodes with time.monotonic() and evicts by those stamps. A simulation must do
the same thing on every run, and two stamps taken in one instant must not tie (a tie is broken by
the order of a set of nodes, which follows their memory addresses). Each call here is one tick
later than the last, so the order of stamps is the order of calls, as a real clock gives it
whenever no two calls share an instant.
"""
from itertools import count

_ticks = count(1)


def monotonic() -> float:
    return float(next(_ticks))
