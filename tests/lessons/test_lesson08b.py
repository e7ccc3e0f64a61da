"""Lesson 08b's sentences say more than their numbers: what each design recomputes and why. Each claim is
checked here against the values the lesson's own cells computed, so a change in an engine that made
a sentence false fails here."""
import pytest

from tests.lessons.test_exercise_texts import run_until


@pytest.fixture(scope="module")
def ns():
    monkeypatch = pytest.MonkeyPatch()
    try:
        yield run_until("08b_radix_tree", "radix_nodes", monkeypatch)   # every cell before the traffic replay
    finally:
        monkeypatch.undo()


def test_same_pages_recompute_the_same_and_part_on_eviction(ns):
    assert ns["redo"]["nano-vllm"] == ns["redo"]["sglang"]
    assert ns["dropped"]["nano-vllm"] > ns["dropped"]["sglang"] == 0
    assert ns["unhashed"] > 0 and ns["first_unhashed"] > 0   # a block without content queued behind cached ones


def test_the_last_block_and_the_unit(ns):
    B, last = ns["B"], ns["last_block"]
    assert last["nano-vllm", B] == last["sglang", B] == B      # the last block, in blocks or pages
    assert last["sglang", 1] == last["nano-vllm", 1] == 1      # one token with a unit of one token


def test_a_part_filled_block(ns):
    B, shared, part, prompt = ns["B"], ns["shared"], ns["part"], ns["extended"][1]
    assert shared % B                                           # the first prompt's last block was part-filled
    assert part["nano-vllm", B] == len(prompt) - shared // B * B
    assert part["sglang", 1] == len(prompt) - shared           # every shared token matched


def test_a_middle_block_evicted_leaves_the_blocks_after_it_unreachable(ns):
    B = ns["B"]
    assert ns["lost"] and set(ns["lost"]) <= ns["in_map"]
    assert ns["nano_hits"]["D"] == B                            # the walk hits `the_`, misses `cat_`
    assert ns["tree_hits"]["D"] == (ns["a_len"] - 1) // B * B    # every block but the last


def test_lookup_counts(ns):
    B, costs = ns["B"], ns["costs"]
    for unit in (B, 1):
        nano, tree = costs["nano-vllm", unit], costs["sglang", unit]
        assert nano["cost"] == nano["cached"] // unit + 1           # a hash a block, up to the first miss
        assert tree["cost"] == 1                                    # the shared system prompt is one edge
    assert ns["block_nodes"] > ns["radix_nodes"]
