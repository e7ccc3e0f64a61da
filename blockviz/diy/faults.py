"""What stops the learner's side of a check, kept as data for the report (with its traceback).

The learner's methods raise these through the engine: they derive from BaseException so that
neither the scheduler nor an `except Exception` in the learner's own code swallows them.
"""
import traceback
from dataclasses import dataclass
from pathlib import Path

HERE = str(Path(__file__).resolve().parent)


@dataclass(frozen=True)
class Fault:
    kind: str        # "not_written", "raised", "too_long" (an endless loop?), "engine_raised", or from the
                     # child (child.py): "timeout" (no return in time), "ended" (exited, crashed), "too_much"
    method: str      # the learner's method it happened in, or the engine's function for engine_raised
    message: str     # the exception as `Type: text`
    traceback: str   # frames of the engine and of the learner's code (the checker's own left out)
    limit: float = 0  # too_long: the instructions it ran past; timeout: the seconds it had


class Stop(BaseException):
    def __init__(self, fault: Fault):
        super().__init__(fault.message)
        self.fault = fault


def described(error: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(error), error)).strip()


def frames_of(error: BaseException, outer: list | None = None) -> str:
    """The traceback (after the `outer` frames that led to the call, when given) without the checker's
    own frames (its wrappers say nothing to a learner), the innermost few."""
    frames = [f for f in [*(outer or []), *traceback.extract_tb(error.__traceback__)]
              if not f.filename.startswith(HERE)]
    return "".join(traceback.format_list(frames[-6:])) + described(error)


def stack_of(frame) -> str:
    """The stack at a running frame, without the checker's own frames."""
    frames = [f for f in traceback.extract_stack(frame) if not f.filename.startswith(HERE)]
    return "".join(traceback.format_list(frames[-6:]))


def not_written(method: str, error: BaseException) -> Stop:
    return Stop(Fault("not_written", method, described(error), frames_of(error, traceback.extract_stack()[:-2])))


def raised(method: str, error: BaseException) -> Stop:
    """In the learner's `method`: the traceback goes on from the engine's frames that called it."""
    return Stop(Fault("raised", method, described(error), frames_of(error, traceback.extract_stack()[:-2])))


def engine_raised(error: BaseException) -> Fault:
    """The engine's own code failed on the learner's state (an assert in _deallocate_block, say)."""
    frames = traceback.extract_tb(error.__traceback__)
    where = frames[-1].name if frames else "?"
    return Fault("engine_raised", where, described(error), frames_of(error))
