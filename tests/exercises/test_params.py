"""make() and from_id() with wrongly typed, nonsense or huge params: a ValueError naming the param
and what is allowed, before an engine is built, for every kind."""
import json
from random import Random

import pytest

from blockviz import exercises
from blockviz.exercises.kinds import KINDS

WRONG_TYPES = [True, "4", 2.0, None, [], {}, [1, "a"], -1, 10**12]


@pytest.mark.parametrize("kind", exercises.kinds())
def test_every_param_of_every_kind_refuses_wrong_types(kind):
    params = KINDS[kind].generate(Random(5))
    for name in params:
        for wrong in WRONG_TYPES:
            if wrong == params[name]:
                continue
            try:
                exercises.make(kind, **{**params, name: wrong})
            except ValueError as e:
                assert name in str(e) or "scenario" in str(e) or "request" in str(e), (name, wrong, e)


@pytest.mark.parametrize("kind, changes, message", [
    ("ref_counts", {"setup": 0}, "setup must be a list"),
    ("slot", {"num_tokens": "4"}, "num_tokens must be a whole number"),
    ("next_block", {"new_max_tokens": -2}, r"new_max_tokens must be a whole number in 1\.\.512, got -2"),
    ("slot", {"block_table": [-1, 2]}, r"block_table\[0\] must be a whole number"),
    ("pool_states", {"num_blocks": 10**12}, r"num_blocks must be a whole number in 1\.\.256"),
    ("pool_states", {"num_blocks": 1e12}, "num_blocks must be a whole number"),
    ("lifetime", {"max_tokens": 10**7}, "max_tokens must be a whole number"),
    ("lifetime", {"max_tokens": 1e7}, "max_tokens must be a whole number"),
    ("decode_mask", {"label": "<svg onload=alert(1)>"}, "label must be a request label"),
    ("hit_pattern", {"new": "<img src=x onerror=alert(1)>"}, "new as text must be"),
    ("slot", {"colour": 1}, "slot takes no param 'colour'; its params are block_size"),
    ("wasted_slots", {"setup": [["add", "A", "ab", 2]] * 40}, "at most 32 ops"),
    ("wasted_slots", {"setup": [["add", f"R{i}", [1] * 400, 100] for i in range(3)]}, "too big for an exercise"),
])
def test_review_cases(kind, changes, message):
    params = {**KINDS[kind].generate(Random(1)), **changes}
    with pytest.raises(ValueError, match=message):
        exercises.make(kind, **params)


def test_a_huge_id_is_refused_before_anything_is_built(monkeypatch):
    params = {"block_size": 4, "num_blocks": 30_000_000, "setup": [["add", "A", "abcd", 2], ["step", 1]], "ask": [0]}
    monkeypatch.setattr("blockviz.exercises.setups.Simulator", None)  # building one would fail differently
    with pytest.raises(ValueError, match=r"num_blocks must be a whole number in 1\.\.256, got 30000000"):
        exercises.from_id("pool_states:" + json.dumps(params))


@pytest.mark.parametrize("exercise_id, message", [
    ("slot:[1,2]", "must be a JSON object"),
    ('slot:{"seed": 3}', "slot takes no param 'seed'"),
    ("slot:{", "not valid JSON"),
    ("slot-" + "9" * 40, "looks like"),
    ("x" * 30_000, "at most 20000 characters"),
])
def test_bad_ids(exercise_id, message):
    with pytest.raises(ValueError, match=message):
        exercises.from_id(exercise_id)


@pytest.mark.parametrize("seed", [-1, True, 2.0, "3", 10**10])
def test_bad_seeds(seed):
    with pytest.raises(ValueError, match="seed"):
        exercises.make("slot", seed)
