"""Where two engines' steps differ: a pure function of what each did in the step and its state after."""
from dataclasses import dataclass
from typing import Any

from blockviz.diy.state import State

# (method, request label, arguments after seq, what it returned)
LabelledCall = tuple[str, str, tuple, Any]


@dataclass(frozen=True)
class StepResult:
    """One engine after one step."""
    calls: tuple[LabelledCall, ...]  # the scheduler's calls into the block manager, in order
    decided: tuple | None            # what schedule() returned: (is_prefill, ((label, tokens scheduled), ...))
    failed: str | None               # the step ended with the engine's own error
    state: State


@dataclass(frozen=True)
class Mismatch:
    field: str   # an attribute's name as the engine spells it (ref_count, free_block_ids, block_table, ...),
                 # or "call" (a call returned something else), "calls", "scheduled", "failed"
    where: Any   # the block id, hash, request label or call it is about; None for a whole field
    mine: Any
    engine: Any


def differences(mine: StepResult, engine: StepResult) -> list[Mismatch]:
    """Every difference at one step: what the scheduler was told and chose, the requests' block tables,
    the free queue, the used set, the hash map, each block, the queues."""
    found = call_differences(mine.calls, engine.calls)
    if mine.decided != engine.decided:
        found.append(Mismatch("scheduled", None, mine.decided, engine.decided))
    if mine.failed != engine.failed:
        found.append(Mismatch("failed", None, mine.failed, engine.failed))
    return found + state_differences(mine.state, engine.state)


def call_differences(mine: tuple[LabelledCall, ...], engine: tuple[LabelledCall, ...]) -> list[Mismatch]:
    """The first call that differs (the ones after it follow from it)."""
    for a, b in zip(mine, engine):
        if a[:3] != b[:3]:
            return [Mismatch("calls", None, a, b)]
        if a[3] != b[3]:
            return [Mismatch("call", a, a[3], b[3])]
    if len(mine) != len(engine):
        extra = len(min(mine, engine, key=len))
        return [Mismatch("calls", None, mine[extra] if len(mine) > extra else None,
                           engine[extra] if len(engine) > extra else None)]
    return []


def state_differences(mine: State, engine: State) -> list[Mismatch]:
    found = []
    for label in sorted({*mine.requests, *engine.requests}):
        a, b = mine.requests.get(label), engine.requests.get(label)
        for name in ("block_table", "num_cached_tokens", "status", "num_tokens"):
            if getattr(a, name, None) != getattr(b, name, None):
                found.append(Mismatch(name, label, getattr(a, name, None), getattr(b, name, None)))
    if mine.free_block_ids != engine.free_block_ids:
        found.append(Mismatch("free_block_ids", None, mine.free_block_ids, engine.free_block_ids))
    if mine.used_block_ids != engine.used_block_ids:
        found.append(Mismatch("used_block_ids", None, mine.used_block_ids, engine.used_block_ids))
    for h in sorted({*mine.hash_to_block_id, *engine.hash_to_block_id}, key=str):
        a, b = mine.hash_to_block_id.get(h), engine.hash_to_block_id.get(h)
        if a != b:
            found.append(Mismatch("hash_to_block_id", h, a, b))
    if len(mine.blocks) != len(engine.blocks):
        found.append(Mismatch("blocks", None, len(mine.blocks), len(engine.blocks)))
    for block_id, (a, b) in enumerate(zip(mine.blocks, engine.blocks)):
        for name in ("ref_count", "hash", "token_ids"):
            if getattr(a, name) != getattr(b, name):
                found.append(Mismatch(name, block_id, getattr(a, name), getattr(b, name)))
    for name in ("waiting", "running"):
        if getattr(mine, name) != getattr(engine, name):
            found.append(Mismatch(name, None, getattr(mine, name), getattr(engine, name)))
    return found
