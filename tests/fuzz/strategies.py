"""Hypothesis strategies shared by the fuzz tests: JSON-like values, mostly of plausible shapes
with wrong types, signs and sizes mixed in."""
from hypothesis import strategies as st

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)  # no lone surrogates: not UTF-8
NUMBERS = st.one_of(st.integers(-3, 40), st.integers(-2**70, 2**70), st.sampled_from([0, 1, 2**31, 2**63, 2**64, 10**12]),
                    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([1.0, 2.5, 36.0, 1e8, 1e12]))
VALUES = st.one_of(st.booleans(), NUMBERS, TEXT,
                   st.sampled_from(["A", "B", "echo", "count", "slots", "<img src=x onerror=alert(1)>", "4", ""]))
SCALARS = st.one_of(st.none(), VALUES)


def nested(leaves: st.SearchStrategy) -> st.SearchStrategy:
    return st.recursive(leaves, lambda inner: st.one_of(st.lists(inner, max_size=6),
                                                       st.dictionaries(TEXT, inner, max_size=4)), max_leaves=20)


JSON = nested(SCALARS)
TOML = nested(VALUES)  # TOML has no null


def ops() -> st.SearchStrategy:
    """Scenario ops, mostly well formed."""
    add = st.tuples(st.just("add"), st.sampled_from(["A", "B", "C", "X2", "<b>", "", 3]),
                    st.one_of(st.text("abcd", min_size=1, max_size=10), st.lists(NUMBERS, max_size=6), JSON),
                    st.one_of(st.integers(1, 8), NUMBERS)).map(list)
    step = st.tuples(st.just("step"), st.one_of(st.integers(1, 3), NUMBERS)).map(list)
    return st.lists(st.one_of(add, add, step, step, JSON), max_size=6)
