"""The BlockManager class a check runs: the learner's methods for the stages checked, the engine's
for every other one, each call the scheduler makes logged, and any error in the learner's code
turned into a Stop that names the method."""
import dis
from dataclasses import dataclass
from functools import wraps
from typing import Any, Callable, Iterable

from blockviz.diy import faults
from blockviz.diy.culprit import PoolCallLog, logged_with_pools
from blockviz.diy.stages import CALLED_BY_SCHEDULER, METHODS
from blockviz.diy.position import WHERE
from blockviz.engine.block_manager import BlockManager

# the instructions of `raise NotImplementedError` or `raise NotImplementedError("...")`, and no others
STUB_INSTRUCTIONS = {"RESUME", "NOP", "CACHE", "PUSH_NULL", "PRECALL", "KW_NAMES", "LOAD_GLOBAL", "LOAD_CONST",
                     "CALL", "RAISE_VARARGS"}


@dataclass(frozen=True)
class Call:
    method: str
    seq_id: int
    args: tuple      # after seq: allocate's num_cached_blocks
    result: Any


class CallLog:
    """The scheduler's calls into one block manager, outermost only: a learner's allocate that calls
    its own can_allocate is one call, as the engine's is."""

    def __init__(self):
        self.calls: list[Call] = []
        self.depth = 0


def own(cls: type, name: str) -> Callable | None:
    """The function `cls` itself (or a base that is not the engine's) defines for `name`."""
    for klass in cls.__mro__:
        if name in vars(klass):
            return None if issubclass(BlockManager, klass) else vars(klass)[name]
    return None


def is_stub(function) -> bool:
    """A method whose whole body is `raise NotImplementedError`: not written yet."""
    code = getattr(function, "__code__", None)
    if code is None or code.co_names != ("NotImplementedError",):
        return False
    return all(i.opname in STUB_INSTRUCTIONS for i in dis.get_instructions(code))


def guarded(name: str, method: Callable) -> Callable:
    @wraps(method)
    def call(self, *args, **kwargs):
        outer = WHERE.method
        WHERE.at(method=name)  # where a hang or an exit happened, for the parent of a killed child
        try:
            return method(self, *args, **kwargs)
        except faults.Stop:
            raise
        except NotImplementedError as e:
            raise faults.not_written(name, e) from e
        except (Exception, SystemExit, KeyboardInterrupt) as e:  # sys.exit() in a method is its exception too
            raise faults.raised(name, e) from e
        finally:
            WHERE.at(method=outer)
    return call


def logged(name: str, method: Callable, log: CallLog) -> Callable:
    @wraps(method)
    def call(self, seq, *args):
        outer = log.depth == 0
        log.depth += 1
        try:
            result = method(self, seq, *args)
        finally:
            log.depth -= 1
        if outer:
            log.calls.append(Call(name, seq.seq_id, args, result))
        return result
    return call


def weak_hash(values: int) -> classmethod:
    """compute_hash reduced to `values` values, so that blocks with different tokens collide (a real
    64-bit hash rarely does, and never in a small workload): what the token check is for."""
    def compute_hash(cls, token_ids: list[int], prefix: int = -1) -> int:
        # 0x1111..., 0x2222...: still 64-bit, so the views' short hashes tell the values apart
        return (BlockManager.compute_hash(token_ids, prefix) % values + 1) * 0x1111_1111_1111_1111
    return classmethod(compute_hash)


def missing_of(learner: type, checked: Iterable[str]) -> tuple[str, ...]:
    """The checked methods `learner` has not written (or left a bare `raise NotImplementedError`)."""
    return tuple(name for name in checked if (mine := own(learner, name)) is None or is_stub(mine))


def assemble(learner: type, checked: Iterable[str], log: CallLog, hash_values: int | None = None,
             pool_log: PoolCallLog | None = None, reference: type = BlockManager) -> tuple[type, tuple[str, ...]]:
    """The class to run, and the checked methods it had to take from the engine (not written yet).
    Every method not the learner's is `reference`'s: the engine's, or (lesson b0) the engine with its
    cache left out (cacheless.py). With `pool_log`, every method's calls are also kept there with the
    pool each left (culprit.py)."""
    checked = tuple(checked)
    bases = (learner,) if issubclass(learner, BlockManager) else (learner, BlockManager)
    namespace: dict[str, Any] = {}
    missing = missing_of(learner, checked)
    for name in METHODS:
        if name in checked and name not in missing:
            method = guarded(name, own(learner, name))
        else:
            method = getattr(reference, name)  # a plain function: looked up on the class
        namespace[name] = logged(name, method, log) if name in CALLED_BY_SCHEDULER else method
        if pool_log is not None:
            namespace[name] = logged_with_pools(name, namespace[name], pool_log)
    init = own(learner, "__init__")
    if init is not None:
        namespace["__init__"] = guarded("__init__", init)
    if hash_values is not None:
        namespace["compute_hash"] = weak_hash(hash_values)
    return type(learner.__name__, bases, namespace), missing
