"""What the model runner computes from a block table: a token's KV slot.

The same arithmetic as ModelRunner.prepare_decode / prepare_prefill (blockviz/engine/model_runner.py),
without torch or a model; tests/exercises/test_slot_formula.py runs both and compares.
"""


def slot_of(block_table: list[int], block_size: int, position: int) -> int:
    """The KV slot of one token: physical block × B + offset (prepare_decode's formula)."""
    return block_table[position // block_size] * block_size + position % block_size


def step_slot_mapping(block_table: list[int], block_size: int, start: int, end: int) -> list[int]:
    """Slots of positions start..end-1 computed in one step, block by block as prepare_prefill
    builds them: each logical block contributes a run of consecutive slots in its physical block."""
    slots = []
    for i in range(start // block_size, (end + block_size - 1) // block_size):
        first = max(start, i * block_size) - i * block_size
        last = min(end, (i + 1) * block_size) - i * block_size
        base = block_table[i] * block_size
        slots.extend(range(base + first, base + last))
    return slots
