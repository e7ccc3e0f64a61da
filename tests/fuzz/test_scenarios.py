"""Random TOML as scenario files: a ValueError naming the file, or a run to completion."""
import tomllib

from hypothesis import HealthCheck, event, given, settings, strategies as st

from blockviz.scenarios import load_scenario
from tests.fuzz.strategies import NUMBERS, TEXT, TOML, VALUES
from tests.fuzz.toml_text import document

TOML_VALUES = st.one_of(VALUES, st.lists(st.one_of(st.integers(-2, 300), NUMBERS), max_size=6), TOML)


def mostly(valid: st.SearchStrategy) -> st.SearchStrategy:
    """Valid seven times in eight, so some whole files are valid and run."""
    return st.integers(0, 7).flatmap(lambda i: valid if i < 7 else TOML_VALUES)  # 0, the simplest, is valid


TOP = st.fixed_dictionaries(
    {"title": mostly(TEXT), "block_size": mostly(st.integers(1, 8)), "num_blocks": mostly(st.integers(1, 40))},
    optional={"max_steps": mostly(st.integers(1, 50)), "max_num_seqs": mostly(st.integers(1, 4)),
              "max_num_batched_tokens": mostly(st.integers(1, 32)),
              "free_order": mostly(st.permutations(range(40))), "notes": mostly(TEXT),
              "tags": mostly(st.lists(TEXT, max_size=3))})
REQUEST = st.fixed_dictionaries(
    {"prompt": mostly(st.one_of(st.text("abc ", min_size=1, max_size=12), st.lists(st.integers(0, 50), min_size=1, max_size=8)))},
    optional={"max_tokens": mostly(st.integers(1, 6)), "at_step": mostly(st.integers(0, 4)),
              "label": mostly(st.sampled_from(["A", "B", "x y"])), "script": mostly(st.text("xyz", max_size=4)),
              "ignore_eos": mostly(st.booleans())})


def check_one(path) -> None:
    try:
        scenario = load_scenario(path)
        sim = scenario.run()
    except ValueError as e:
        assert str(path) in str(e) or "scenario" in str(e), e
        event("refused")
        return
    assert sim.is_finished()
    event("ran to the end")  # --hypothesis-show-statistics: both outcomes are reached


@settings(max_examples=150, deadline=3000, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(top=TOP, requests=st.lists(REQUEST, min_size=1, max_size=3) | st.just([]))
def test_random_scenario_files(tmp_path, top, requests):
    path = tmp_path / "random.toml"
    path.write_text(document(top, requests), encoding="utf-8")
    tomllib.loads(path.read_text(encoding="utf-8"))  # the writer makes valid TOML: the test reaches the checks
    check_one(path)


@settings(max_examples=60, deadline=2000, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(blob=st.binary(max_size=200))
def test_random_bytes_as_a_scenario_file(tmp_path, blob):
    path = tmp_path / "blob.toml"
    path.write_bytes(blob)
    check_one(path)
