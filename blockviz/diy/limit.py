"""Cut an endless loop in the learner's code: count the instructions it runs in one engine step.

sys.settrace calls `on_call` for each new frame and traces only the learner's code: the class's own
code objects and any code that is neither blockviz's nor an installed library's (a helper defined in
another cell), so the engine runs at full speed; a count (not a clock) makes the cut the same on any
machine. Instructions, not lines: `while True: pass` is one line that never starts again.
This is the fast path for an ordinary endless loop; what it cannot cut (a sleep, a C loop, a bare
`except:` that swallows the cut, sys.settrace(None)) the child's wall clock stops (child.py).
"""
import os
import sys
import sysconfig
from contextlib import contextmanager
from types import CodeType

from blockviz.diy.faults import Fault, Stop, stack_of
from blockviz.diy.position import WHERE

MAX_INSTRUCTIONS = 1_000_000  # a step of these workloads runs a few thousand of the learner's
PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
LIBRARIES = tuple({os.path.realpath(p) + os.sep for p in sysconfig.get_paths().values()} |
                  {p + os.sep for p in sysconfig.get_paths().values()})


def outside(filename: str) -> bool:
    """Code of neither blockviz nor an installed library (the standard one included): the learner's."""
    return not (filename.startswith(PACKAGE) or filename.startswith(LIBRARIES) or filename.startswith("<frozen"))


def codes_of(cls: type, stop_at: type) -> set[CodeType]:
    """The code of every function `cls` and its bases up to `stop_at` define, nested code included."""
    found: set[CodeType] = set()
    for klass in cls.__mro__:
        if issubclass(stop_at, klass):  # stop_at itself and its bases: the engine's code runs untraced
            continue
        for value in vars(klass).values():
            functions = (value.fget, value.fset, value.fdel) if isinstance(value, property) else (value,)
            for function in functions:
                code = getattr(getattr(function, "__func__", function), "__code__", None)
                if code is not None:
                    _collect(code, found)
    return found


def _collect(code: CodeType, found: set[CodeType]):
    found.add(code)
    for const in code.co_consts:
        if isinstance(const, CodeType):
            _collect(const, found)


class LineLimit:

    def __init__(self, codes: set[CodeType], max_instructions: int | None = None):
        self.codes = codes
        self.max_instructions = MAX_INSTRUCTIONS if max_instructions is None else max_instructions
        self.count = 0
        self.known: dict[CodeType, bool] = {}  # code object -> traced

    @contextmanager
    def step(self):
        """Count afresh for one engine step; whatever traced before (a coverage tool) traces again after."""
        self.count = 0
        if not self.codes:
            yield
            return
        previous = sys.gettrace()
        sys.settrace(self.on_call)
        try:
            yield
        finally:
            sys.settrace(previous)

    def on_call(self, frame, event, arg):
        code = frame.f_code
        traced = self.known.get(code)
        if traced is None:
            traced = self.known[code] = code in self.codes or outside(code.co_filename)
        if not traced:
            return None
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        return self.on_opcode

    def on_opcode(self, frame, event, arg):
        if event == "opcode":
            self.count += 1
            if self.count > self.max_instructions:
                raise Stop(Fault("too_long", WHERE.method or frame.f_code.co_name,
                                 f"more than {self.max_instructions} instructions in one engine step", stack_of(frame),
                                 self.max_instructions))
        return self.on_opcode
