"""vLLM's KV-cache events on the wire, decoded into typed records.

A publisher sends ZMQ multipart messages [topic, sequence number (8 bytes, big-endian), payload];
the payload is msgpack `[ts, [events...], data_parallel_rank]`. Events come in two encodings:
tagged maps `{"type": "BlockStored", "block_hashes": ..., ...}` (vLLM since mid-2026) and arrays
`["BlockStored", block_hashes, parent_block_hash, ...]` (earlier releases). msgspec checks every
field's type in C, so a batch decodes in one call; a batch that fails is decoded again event by
event, so one bad event costs only itself.
"""
from typing import Any

import msgspec

Hash = int | bytes   # vLLM's ExternalBlockHash: sha256 bytes, or 64-bit ints with VLLM_KV_EVENTS_USE_INT_BLOCK_HASHES


class StoredFields(msgspec.Struct):
    block_hashes: list[Hash]
    parent_block_hash: Hash | None
    token_ids: list[int]
    block_size: int
    lora_id: int | None = None
    medium: str | None = None
    lora_name: str | None = None
    extra_keys: list[Any] | None = None
    group_idx: int | None = None


class RemovedFields(msgspec.Struct):
    block_hashes: list[Hash]
    medium: str | None = None
    group_idx: int | None = None


class ClearedFields(msgspec.Struct):
    pass


class StoredMap(StoredFields, tag_field="type", tag="BlockStored"):
    pass


class RemovedMap(RemovedFields, tag_field="type", tag="BlockRemoved"):
    pass


class ClearedMap(ClearedFields, tag_field="type", tag="AllBlocksCleared"):
    pass


class StoredArray(StoredFields, array_like=True, tag="BlockStored"):
    pass


class RemovedArray(RemovedFields, array_like=True, tag="BlockRemoved"):
    pass


class ClearedArray(ClearedFields, array_like=True, tag="AllBlocksCleared"):
    pass


MapEvent = StoredMap | RemovedMap | ClearedMap
ArrayEvent = StoredArray | RemovedArray | ClearedArray
Event = StoredFields | RemovedFields | ClearedFields
STORED = (StoredMap, StoredArray)   # the only events with something to check beyond their types


class MapBatch(msgspec.Struct, array_like=True):
    ts: float
    events: list[MapEvent]
    data_parallel_rank: int | None = None


class ArrayBatch(msgspec.Struct, array_like=True):
    ts: float
    events: list[ArrayEvent]
    data_parallel_rank: int | None = None


class LooseBatch(msgspec.Struct, array_like=True):
    ts: float
    events: list[Any]
    data_parallel_rank: int | None = None


class Batch(msgspec.Struct):
    """One decoded payload: the events that decoded, and why the others did not."""
    ts: float
    events: list[Event]
    data_parallel_rank: int | None
    problems: list[str]


class WireError(ValueError):
    """A message that is not a vLLM KV-event batch."""


_map_batch = msgspec.msgpack.Decoder(MapBatch)
_array_batch = msgspec.msgpack.Decoder(ArrayBatch)
_loose_batch = msgspec.msgpack.Decoder(LooseBatch)


def decode_batch(payload: bytes) -> Batch:
    """The events of one payload. Raises WireError when the payload is not a batch at all; events
    that do not decode are left out and named in `problems`."""
    for decoder in (_map_batch, _array_batch):
        try:
            batch = decoder.decode(payload)
        except (msgspec.ValidationError, msgspec.DecodeError):
            continue
        problems = [p for e in batch.events if type(e) in STORED and (p := check_event(e))]
        events = [e for e in batch.events if not check_event(e)] if problems else batch.events
        return Batch(batch.ts, events, batch.data_parallel_rank, problems)
    try:
        loose = _loose_batch.decode(payload)
    except (msgspec.ValidationError, msgspec.DecodeError) as e:
        raise WireError(f"not a KV-event batch: {e}") from None
    events, problems = [], []
    for i, raw in enumerate(loose.events):
        try:
            event = msgspec.convert(raw, MapEvent if isinstance(raw, dict) else ArrayEvent)
        except msgspec.ValidationError as e:
            problems.append(f"event {i}: {e}")
            continue
        if problem := check_event(event):
            problems.append(f"event {i}: {problem}")
        else:
            events.append(event)
    return Batch(loose.ts, events, loose.data_parallel_rank, problems)


def check_event(event: Event) -> str:
    """What is wrong with an event whose fields have the right types ('' when nothing is)."""
    if isinstance(event, StoredFields):
        if event.block_size < 1:
            return f"BlockStored block_size {event.block_size} < 1"
        blocks, tokens = len(event.block_hashes), len(event.token_ids)
        # the last block may be partial (vLLM's partial-block caching); every other one is full
        if not (blocks - 1) * event.block_size < tokens <= blocks * event.block_size:
            return f"BlockStored has {tokens} token ids for {blocks} blocks of {event.block_size}"
        if event.extra_keys is not None and len(event.extra_keys) != blocks:
            return f"BlockStored has {len(event.extra_keys)} extra_keys for {blocks} blocks"
    return ""


def parse_sequence(frame: bytes) -> int:
    if len(frame) != 8:
        raise WireError(f"sequence number frame has {len(frame)} bytes, not 8")
    return int.from_bytes(frame, "big", signed=True)


def sequence_bytes(seq: int) -> bytes:
    return seq.to_bytes(8, "big", signed=True)


_encoder = msgspec.msgpack.Encoder()


def encode_batch(ts: float, events: list[Event], data_parallel_rank: int | None = 0, form: str = "map") -> bytes:
    """A payload as vLLM sends it: `form` "map" (tagged maps) or "array" (earlier releases).
    Used by the synthetic publisher of the tests and benchmarks."""
    kinds = {"map": (MapBatch, StoredMap, RemovedMap, ClearedMap),
             "array": (ArrayBatch, StoredArray, RemovedArray, ClearedArray)}
    if form not in kinds:
        raise ValueError(f"unknown event form {form!r}; choose 'map' or 'array'")
    batch_type, stored, removed, cleared = kinds[form]
    converted = []
    for e in events:
        kind = stored if isinstance(e, StoredFields) else removed if isinstance(e, RemovedFields) else cleared
        converted.append(e if type(e) is kind else kind(**msgspec.structs.asdict(e)))
    return _encoder.encode(batch_type(ts, converted, data_parallel_rank))


def stored(hashes: list[Hash], parent: Hash | None, token_ids: list[int], block_size: int,
           medium: str | None = "GPU", **fields) -> StoredMap:
    return StoredMap(list(hashes), parent, list(token_ids), block_size, medium=medium, **fields)


def removed(hashes: list[Hash], medium: str | None = "GPU", **fields) -> RemovedMap:
    return RemovedMap(list(hashes), medium=medium, **fields)


def cleared() -> ClearedMap:
    return ClearedMap()
