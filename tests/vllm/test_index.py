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


def test_cached_blocks_are_capped_oldest_forgotten(monkeypatch):
    from blockviz.vllm import index as index_module
    monkeypatch.setattr(index_module, "MAX_CACHED_BLOCKS", 5)
    index = PrefixIndex()
    for h in range(1, 9):  # a publisher that stores and never removes
        step(index, stored([h], None, [h, h], 2))
    assert [r.hash for r in index.live.values()] == [4, 5, 6, 7, 8] and index.forgotten_blocks == 3
    assert index.child(SRC, None, (1, 1)) is None and index.child(SRC, None, (8, 8)) is not None


def test_raw_payloads_are_capped_and_a_save_starts_where_they_are_whole(monkeypatch, tmp_path):
    from blockviz.vllm import Watch, index as index_module, load
    from blockviz.vllm.wire import encode_batch
    monkeypatch.setattr(index_module, "MAX_PAYLOAD_BYTES", 300)
    w = Watch(history=50, subscribe=False, api=None)
    for i in range(20):
        w.batch(SRC, i, encode_batch(float(i), [stored([i + 1], i or None, [i, i], 2)]), "live", 0)
    assert w.index.payload_bytes <= 300 and w.index.payloads_dropped > 0
    first = w.index.first_with_payload
    assert first > 0 and all(not info.payload_dropped for info in w.index.steps if info.step >= first)
    with pytest.raises(ValueError, match="no longer kept"):
        w.events(0)
    w.save(tmp_path / "r.jsonl")
    again = load(tmp_path / "r.jsonl")
    assert again.first_step == first and again.last_step == 19
    assert [r.hash for r in again.picture(19).blocks] == [r.hash for r in w.picture(19).blocks]


def test_block_sizes_of_idle_sources_are_forgotten(monkeypatch):
    from blockviz.vllm import index as index_module
    monkeypatch.setattr(index_module, "MAX_SOURCES", 8)
    index = PrefixIndex(history=2)
    index.sources_cap = 8
    for i in range(40):
        source = f"topic-{i}"
        step(index, stored([i], None, [1, 2], 2), source=source)
        step(index, removed([i]), source=source)
    assert len(index.block_sizes) <= 8 and index.forgotten_sources > 0 and "topic-39" in index.block_sizes


def test_a_batch_too_large_is_refused_before_decoding(monkeypatch):
    import importlib
    from blockviz.vllm import Watch
    from blockviz.vllm.wire import encode_batch
    monkeypatch.setattr(importlib.import_module("blockviz.vllm.watch"), "MAX_BATCH_BYTES", 100)
    w = Watch(subscribe=False, api=None)
    w.batch(SRC, 0, encode_batch(0.0, [removed([h]) for h in range(100)]), "live", 0)
    assert w.last_step == -1 and "more than 100" in w.problems[-1].reason
