"""Which method went wrong. On the run that draws the pictures every call into the block manager is
kept (the scheduler's and the block manager's own, each as it returns, so the innermost first) with
the pool it found, what it returned and the pool it left. The method at fault is the first call
that found the same pool as the engine's call and returned or left another; a call that found the
pool already changed by its caller is skipped, so the blame goes to the caller."""
from dataclasses import dataclass
from functools import wraps
from typing import Any, Callable

from blockviz.diy.compare import Mismatch, state_differences
from blockviz.diy.state import BlockValues, RequestState, State


@dataclass(frozen=True)
class LoggedCall:
    method: str
    callers: tuple[str, ...]  # the calls it ran inside, outermost first (() : the scheduler's own)
    seq_id: int | None        # the request it was for (an inner call: its caller's)
    args: tuple               # after seq
    result: Any
    before: State             # the pool it found, with its request
    after: State              # the pool it left


class PoolCallLog:
    def __init__(self):
        self.calls: list[LoggedCall] = []
        self.stack: list[tuple[str, int | None]] = []  # (method, seq_id) of the calls running


def pool_of(bm, seq) -> State:
    requests = {} if seq is None else {"": RequestState(seq.status.name.lower(), tuple(seq.block_table),
                                                         seq.num_cached_tokens, seq.num_tokens)}
    return State(tuple(BlockValues(b.ref_count, b.hash, tuple(b.token_ids)) for b in bm.blocks),
                 tuple(bm.free_block_ids), frozenset(bm.used_block_ids), dict(bm.hash_to_block_id), requests, (), ())


def logged_with_pools(name: str, method: Callable, pool_log: PoolCallLog) -> Callable:
    @wraps(method)
    def call(self, *args):
        seq = args[0] if args and hasattr(args[0], "block_table") else None
        outer = next((seq_id for _, seq_id in reversed(pool_log.stack) if seq_id is not None), None)
        seq_id = seq.seq_id if seq is not None else outer
        before = pool_of(self, seq)
        pool_log.stack.append((name, seq_id))
        try:
            result = method(self, *args)
        finally:
            pool_log.stack.pop()
        pool_log.calls.append(LoggedCall(name, tuple(m for m, _ in pool_log.stack), seq_id, args[1:] if seq else args,
                                      result, before, pool_of(self, seq)))
        return result
    return call


@dataclass(frozen=True)
class Culprit:
    label: str                   # the request
    mine: LoggedCall
    engine: LoggedCall
    effect: Mismatch | None      # the first difference in the pool the call left (None: only its result differs)

    @property
    def method(self) -> str:
        """The method at fault: the call's own, or its caller's when the caller passed other arguments."""
        return self.mine.method if self.mine.args == self.engine.args else self.mine.callers[-1]


def culprit(mine: list[LoggedCall], engine: list[LoggedCall], labels: dict[int, str]) -> Culprit | None:
    """The first call, made by both sides in the same place, that returned or left something else;
    a caller that made its inner call more or fewer times than the engine's (other_count); None when
    the sides called different methods first otherwise (the report's call differences say so)."""
    for i, (a, b) in enumerate(zip(mine, engine)):
        if (a.method, a.callers) != (b.method, b.callers):
            return other_count(mine[i:], engine[i:], labels)
        if a.args != b.args:  # the caller chose another block to hand it
            return Culprit(labels.get(a.seq_id, "?"), a, b, None) if a.callers else None
        if a.before != b.before:
            continue  # its caller changed the pool first: the caller is to blame
        if a.result != b.result or a.after != b.after:
            return blamed(a, b, labels)
    return None


def blamed(a: LoggedCall, b: LoggedCall, labels: dict[int, str]) -> Culprit:
    """Call `a` at fault against the engine's `b`, with the first difference in the pool it left."""
    label = labels.get(a.seq_id, "?")
    effect = next(iter(state_differences(a.after, b.after)), None)
    if effect is not None and effect.where == "":  # the call's request, kept unnamed in its pool
        effect = Mismatch(effect.field, label, effect.mine, effect.engine)
    return Culprit(label, a, b, effect)


def outer_of(calls: list[LoggedCall], call: LoggedCall) -> LoggedCall | None:
    """The call `call` ran inside: the first later one of its caller's method at its caller's depth
    (a call is kept as it returns, so its caller comes after it)."""
    if not call.callers:
        return None
    return next((c for c in calls if (c.method, c.callers) == (call.callers[-1], call.callers[:-1])), None)


def other_count(mine: list[LoggedCall], engine: list[LoggedCall], labels: dict[int, str]) -> Culprit | None:
    """Where one side's caller makes one more inner call while the other's has already returned (an
    allocate that takes one block too many, or one too few): the caller is at fault, with the pool
    it left. Both lists start at the first call that differs."""
    a, b = mine[0], engine[0]
    if a.callers and (b.method, b.callers) == (a.callers[-1], a.callers[:-1]):  # yours called once more
        a = outer_of(mine, a)
    elif b.callers and (a.method, a.callers) == (b.callers[-1], b.callers[:-1]):  # yours called once fewer
        b = outer_of(engine, b)
    else:
        return None
    if a is None or b is None or a.args != b.args or a.before != b.before:
        return None
    return blamed(a, b, labels)
