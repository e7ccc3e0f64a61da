import pytest
from hypothesis import given, settings, strategies as st

from blockviz.vllm import predict
from blockviz.vllm.index import PrefixIndex, StepInfo
from blockviz.vllm.wire import cleared, removed, stored

from tests.vllm.synthetic import ToyCache

SRC = "engine"


def step(index: PrefixIndex, *events, source: str = SRC) -> StepInfo:
    return index.apply(StepInfo(0, source, index.next_step, 0.0, 0.0, b""), list(events))


def test_a_chain_is_stored_with_parents_and_removed_at_its_step():
    index = PrefixIndex()
    step(index, stored([1, 2], None, list(range(8)), 4))
    info = step(index, removed([2]))
    assert [r.hash for r in index.resident(0)] == [1, 2]
    assert [r.hash for r in index.resident(1)] == [1]
    (gone,) = info.removed
    assert (gone.parent, gone.token_ids, gone.stored_at, gone.removed_at) == (1, (4, 5, 6, 7), 0, 1)
    assert (info.stored_total, info.removed_total, info.resident) == (2, 1, 1)


def test_a_block_cached_twice_lives_until_its_last_copy_goes():
    index = PrefixIndex()
    step(index, stored([1], None, [1, 2, 3, 4], 4))
    step(index, stored([1], None, [1, 2, 3, 4], 4))   # a second physical block, same content
    step(index, removed([1]))
    assert [r.copies for r in index.resident(2)] == [1]
    assert predict.cached_tokens(index, SRC, [1, 2, 3, 4, 5]) == 4
    step(index, removed([1]))
    assert index.resident(3) == [] and predict.cached_tokens(index, SRC, [1, 2, 3, 4, 5]) == 0


def test_all_blocks_cleared_empties_only_its_source():
    index = PrefixIndex()
    step(index, stored([1], None, [1, 2], 2))
    step(index, stored([9], None, [1, 2], 2), source="other")
    info = step(index, cleared())
    assert info.cleared and [r.source for r in index.resident(2)] == ["other"]
    assert [r.hash for r in index.resident(1)] == [1, 9]


def test_a_removal_of_a_block_never_seen_is_counted_not_fatal():
    index = PrefixIndex()
    info = step(index, removed([42, 43]))
    assert info.unknown_removed == 2 and index.resident(0) == []


def test_history_keeps_the_newest_steps_and_says_when_a_step_is_gone():
    index = PrefixIndex(history=3)
    for i in range(10):
        step(index, stored([i + 1], None, [i] * 2, 2), *([removed([i])] if i else []))
    assert (index.first_step, index.last_step) == (7, 9)
    assert [r.hash for r in index.resident(7)] == [8]
    with pytest.raises(IndexError, match="no longer kept: history=3 keeps steps 7..9"):
        index.resident(6)
    with pytest.raises(IndexError, match="not happened yet"):
        index.resident(10)
    assert len(index.ended) <= 3   # records that ended before the window are dropped


def test_prediction_caps_at_all_tokens_but_one():
    index = PrefixIndex()
    step(index, stored([1, 2], None, list(range(8)), 4))
    assert predict.cached_tokens(index, SRC, list(range(8))) == 4      # 8 tokens: the last block is recomputed
    assert predict.cached_tokens(index, SRC, list(range(9))) == 8
    assert predict.cached_tokens(index, SRC, [0, 1, 2, 3, 9, 9, 9, 9, 9]) == 4
    assert predict.cached_tokens(index, SRC, [9] + list(range(8))) == 0
    assert predict.cached_tokens(index, "nobody", list(range(9))) == 0


def test_blocks_with_extra_keys_or_another_medium_are_not_hit_by_a_plain_prompt():
    index = PrefixIndex()
    step(index, stored([1], None, [1, 2], 2, extra_keys=[["salt"]]), stored([2], None, [3, 4], 2, medium="CPU"))
    assert predict.cached_tokens(index, SRC, [1, 2, 5]) == 0 and predict.cached_tokens(index, SRC, [3, 4, 5]) == 0
    assert len(index.resident(0)) == 2


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 2), min_size=1, max_size=14), min_size=1, max_size=30),
       st.integers(1, 8), st.sampled_from([None, 5]))
def test_every_kept_picture_and_prediction_matches_the_cache_that_made_the_events(prompts, capacity, history):
    cache, index = ToyCache(capacity, 2), PrefixIndex(history)
    truth = []
    for p in prompts:
        assert predict.cached_tokens(index, SRC, p) == cache.hit_blocks(p) * 2
        step(index, *cache.run(p))
        truth.append({(h, parent, tokens) for h, (parent, tokens) in cache.blocks.items()})
    for s in range(index.first_step, index.last_step + 1):
        assert {(r.hash, r.parent, r.token_ids) for r in index.resident(s)} == truth[s]
