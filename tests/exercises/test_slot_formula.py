"""The slot answers use the model runner's own formula: prepare_prefill / prepare_decode, run on
the engine's block tables without a model, give the same slots as blockviz.slots.step_slot_mapping / slot_of."""
import pytest

torch = pytest.importorskip("torch")

from blockviz import exercises  # noqa: E402
from blockviz.engine.model_runner import ModelRunner  # noqa: E402
from blockviz.engine.sequence import Sequence  # noqa: E402
from blockviz.utils.context import get_context, reset_context  # noqa: E402


def runner(block_size: int) -> ModelRunner:
    r = object.__new__(ModelRunner)  # only the batch preparation: no model, no KV pool
    r.block_size, r.device = block_size, torch.device("cpu")
    return r


def prefill_slots(block_size: int, block_table: list[int], num_tokens: int, start: int, count: int) -> list[int]:
    seq = Sequence(list(range(1, num_tokens + 1)), block_size=block_size)
    seq.block_table, seq.num_cached_tokens, seq.num_scheduled_tokens = list(block_table), start, count
    try:
        runner(block_size).prepare_prefill([seq])
        return get_context().slot_mapping.tolist()
    finally:
        reset_context()


def decode_slot(block_size: int, block_table: list[int], position: int) -> int:
    seq = Sequence(list(range(1, position + 2)), block_size=block_size)  # the token at `position` is the last
    seq.block_table = list(block_table[:position // block_size + 1])
    try:
        runner(block_size).prepare_decode([seq])
        return get_context().slot_mapping.tolist()[0]
    finally:
        reset_context()


def test_slot_mapping_matches_prepare_prefill():
    for seed in range(30):
        ex = exercises.make("slot_mapping", seed)
        p, table = ex.params, ex.solved.facts["table"]
        assert ex.answer() == prefill_slots(p["block_size"], table, p["num_tokens"], p["positions"][0],
                                            len(p["positions"])), ex.id


def test_slot_matches_prepare_decode():
    for seed in range(30):
        ex = exercises.make("slot", seed)
        p = ex.params
        assert ex.answer() == decode_slot(p["block_size"], ex.solved.facts["table"], p["position"]), ex.id


def test_seed004():
    assert prefill_slots(4, [5, 2, 7], 10, 3, 4) == [23, 8, 9, 10]
    assert decode_slot(4, [5, 2, 7], 6) == 10
