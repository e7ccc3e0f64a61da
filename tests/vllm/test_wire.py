import msgspec
import pytest
from hypothesis import given, settings, strategies as st

from blockviz.vllm.wire import (ClearedFields, RemovedFields, StoredFields, WireError, cleared, decode_batch,
                                encode_batch, parse_sequence, removed, sequence_bytes, stored)

EVENTS = [stored([11, 12], None, list(range(8)), 4), removed([11]), cleared(),
          stored([b"\x01" * 32], 12, [5, 6, 7], 4, lora_name=None, extra_keys=[None], group_idx=0)]


@pytest.mark.parametrize("form", ["map", "array"])
def test_both_encodings_decode_to_the_same_events(form):
    batch = decode_batch(encode_batch(1.5, EVENTS, 2, form))
    assert (batch.ts, batch.data_parallel_rank, batch.problems) == (1.5, 2, [])
    kinds = [StoredFields, RemovedFields, ClearedFields, StoredFields]
    assert [isinstance(e, k) for e, k in zip(batch.events, kinds)] == [True] * 4
    assert batch.events[0].block_hashes == [11, 12] and batch.events[0].token_ids == list(range(8))
    assert batch.events[3].block_hashes == [b"\x01" * 32] and batch.events[3].parent_block_hash == 12


def test_the_map_form_is_what_vllm_0_32_sends():
    # fields as vLLM 0.32 packs them, including ones blockviz does not read
    payload = msgspec.msgpack.encode([1.0, [{"type": "BlockStored", "block_hashes": [7], "parent_block_hash": None,
                                             "token_ids": [1] * 32, "block_size": 32, "lora_id": None,
                                             "medium": "GPU", "lora_name": None, "extra_keys": [None],
                                             "group_idx": 0, "kv_cache_spec_kind": "full_attention"}], 0])
    (event,) = decode_batch(payload).events
    assert (event.block_hashes, event.block_size, event.medium) == ([7], 32, "GPU")


def test_a_bad_event_is_named_and_the_others_kept():
    payload = msgspec.msgpack.encode([1.0, [{"type": "BlockStored", "block_hashes": [1], "parent_block_hash": None,
                                             "token_ids": ["x"], "block_size": 4},
                                            {"type": "BlockRemoved", "block_hashes": [3]},
                                            {"type": "BlockTeleported"},
                                            {"type": "BlockStored", "block_hashes": [1], "parent_block_hash": None,
                                             "token_ids": [1] * 9, "block_size": 4}], 0])
    batch = decode_batch(payload)
    assert [type(e).__name__ for e in batch.events] == ["RemovedMap"]
    assert len(batch.problems) == 3
    assert "event 0" in batch.problems[0] and "token_ids" in batch.problems[0]
    assert "BlockTeleported" in batch.problems[1]
    assert "9 token ids for 1 blocks of 4" in batch.problems[2]


@pytest.mark.parametrize("payload", [b"", b"\xc1", msgspec.msgpack.encode({"ts": 1}), msgspec.msgpack.encode([1.0]),
                                     msgspec.msgpack.encode(["now", [], 0])])
def test_a_payload_that_is_no_batch_raises_a_wire_error(payload):
    with pytest.raises(WireError, match="not a KV-event batch"):
        decode_batch(payload)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_decode_or_raise_a_wire_error(data):
    try:
        batch = decode_batch(data)
    except WireError:
        return
    assert all(isinstance(e, (StoredFields, RemovedFields, ClearedFields)) for e in batch.events)


json_like = st.recursive(st.none() | st.booleans() | st.integers(-2**63, 2**63 - 1) | st.text(max_size=5)
                         | st.binary(max_size=5), lambda inner: st.lists(inner, max_size=4)
                         | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(st.lists(json_like, max_size=5))
def test_any_msgpack_events_decode_or_are_reported(events):
    try:
        batch = decode_batch(msgspec.msgpack.encode([0.0, events, 0]))
    except WireError:
        return
    assert len(batch.events) + len(batch.problems) == len(events)


def test_sequence_numbers_are_8_bytes_big_endian():
    assert parse_sequence(sequence_bytes(258)) == 258 and sequence_bytes(258) == b"\0" * 6 + b"\x01\x02"
    assert parse_sequence(sequence_bytes(-1)) == -1
    with pytest.raises(WireError):
        parse_sequence(b"\x01")
