"""The learner's side of a check runs in a child process forked from the kernel (so classes defined
in notebook cells come along) under a wall-clock and a memory limit, and sends back plain values
only (plain_values.py): the parent computes the engine's side and every comparison itself.

Whatever the learner's code does then stays in the child: a hang, a sleep, a C loop, sys.settrace(None),
a bare except that swallows the instruction cut, os._exit, a crash, a patch of the checker or of the
engine's classes. The parent stops waiting after STEP_SECONDS without a message, kills the child and
says where it was (position.py) with the stack faulthandler wrote just before.
"""
import faulthandler
import gc
import io
import linecache
import os
import pickle
import re
import resource
import select
import signal
import struct
import sys
import tempfile
import time
import warnings
from typing import Callable, Iterator

from blockviz.diy.faults import HERE, Fault, described, frames_of
from blockviz.diy.position import WHERE

STEP_SECONDS = 10.0       # the longest an engine step of the learner's code may take, on the wall clock
GRACE_SECONDS = 1.0       # after the child's own watchdog wrote its stack
MEMORY_BYTES = 2 << 30    # how much the child may grow beyond the kernel it was forked from
MAX_MESSAGE = 64 << 20    # one message's pickle (a workload's pictures are a few hundred kB)
MAX_OUTPUT = 64 << 10     # what the learner's print() in the child shows in the notebook
HEADER = struct.Struct("!Q")
# what a message may be made of besides builtins: the checker's records, the pictures' arrays
ALLOWED = {("builtins", "set"), ("builtins", "frozenset"), ("builtins", "bytearray"), ("array", "array"),
           ("array", "_array_reconstructor"), ("numpy", "ndarray"), ("numpy", "dtype"),
           ("numpy._core.multiarray", "_reconstruct"), ("numpy.core.multiarray", "_reconstruct"),
           ("numpy._core.numeric", "_frombuffer"), ("numpy.core.numeric", "_frombuffer")}
FRAME = re.compile(r'^\s*File "(.*)", line (\d+) in (.*)$')

Send = Callable[[tuple], None]


class Unpickler(pickle.Unpickler):
    """Builds blockviz's classes and a few builtins only: nothing of the learner's runs in the parent."""

    def find_class(self, module: str, name: str):
        if (module, name) in ALLOWED or module.startswith("blockviz."):
            found = super().find_class(module, name)
            if isinstance(found, type) or (module, name) in ALLOWED:
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not a value a check sends")


class Child:
    """run(send) in a forked child; the parent iterates over what it sent, then over how it ended."""

    def __init__(self, run: Callable[[Send], None], step_seconds: float | None = None):
        self.step_seconds = STEP_SECONDS if step_seconds is None else step_seconds
        # unbuffered: what the child wrote is there even when it is killed the moment after
        self.stack = tempfile.TemporaryFile(buffering=0)   # the child's watchdog writes its stack here
        self.output = tempfile.TemporaryFile(buffering=0)  # and its print() here
        WHERE.at(0, "")
        read, write = os.pipe()
        with warnings.catch_warnings():  # 3.12 warns of forking a threaded process: the child only runs this
            warnings.simplefilter("ignore", DeprecationWarning)
            self.pid = os.fork()
        if self.pid == 0:  # the child: never returns into the kernel's code
            try:
                os.close(read)
                self._child(run, write)
            finally:
                os._exit(0)
        os.close(write)
        self.fd = read
        self.buffer = bytearray()
        self.status: int | None = None

    # the child --------------------------------------------------------------------------------
    def _child(self, run: Callable[[Send], None], fd: int):
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # an interrupt in the notebook stops the parent, which kills this
        faulthandler.enable(file=self.stack)  # a crash leaves its stack where a hang leaves its own
        gc.freeze()  # the kernel's objects stay as they are: no finalizer of theirs runs here
        limit_memory()
        sys.stdout = sys.stderr = Capped(self.output)

        def send(message: tuple):
            data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
            if len(data) > MAX_MESSAGE:
                raise ValueError(f"a message of {len(data)} bytes (at most {MAX_MESSAGE})")
            write_all(fd, HEADER.pack(len(data)) + data)
            # each message starts the clock again: a step has step_seconds, then the stack is written
            faulthandler.dump_traceback_later(self.step_seconds, file=self.stack, exit=False)

        faulthandler.dump_traceback_later(self.step_seconds, file=self.stack, exit=False)
        try:
            run(send)
            send(("done",))
        except BaseException as e:  # what got past the learner's side: still said, never a crash
            try:
                send(("lost", described(e), frames_of(e)))
            except BaseException:
                pass
        finally:
            faulthandler.cancel_dump_traceback_later()

    # the parent -------------------------------------------------------------------------------
    def messages(self) -> Iterator[tuple]:
        """Each message, then at most one ("fault", step, Fault, ()) if the child did not end with "done"."""
        while True:
            message = self._next()
            if isinstance(message, Fault):
                yield "fault", WHERE.read()[0], message, ()
                return
            yield message
            if message[0] in ("done", "lost"):
                return

    def _next(self):
        deadline = time.monotonic() + self.step_seconds + GRACE_SECONDS
        while True:
            if len(self.buffer) >= HEADER.size:
                (size,) = HEADER.unpack_from(self.buffer)
                if size > MAX_MESSAGE:
                    return self._ended("too_much", f"a message of {size} bytes")
                if len(self.buffer) >= HEADER.size + size:
                    data = bytes(self.buffer[HEADER.size:HEADER.size + size])
                    del self.buffer[:HEADER.size + size]
                    try:
                        return Unpickler(io.BytesIO(data)).load()
                    except Exception as e:
                        return self._ended("too_much", described(e))
            left = deadline - time.monotonic()
            if left <= 0:
                self.kill()
                return self._ended("timeout", f"no return within {self.step_seconds:g} s")
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                chunk = os.read(self.fd, 1 << 20)
                if not chunk:
                    return self._ended("ended", self._exit_text())
                self.buffer += chunk

    def _ended(self, kind: str, message: str) -> Fault:
        self.kill()
        step, method = WHERE.read()
        seconds = int(self.step_seconds) if self.step_seconds == int(self.step_seconds) else self.step_seconds
        return Fault(kind, method or "?", message, self._stack(), seconds if kind == "timeout" else 0)

    def _exit_text(self) -> str:
        _, status = os.waitpid(self.pid, 0)
        self.status = status
        if os.WIFSIGNALED(status):
            number = os.WTERMSIG(status)
            return f"killed by signal {number} ({signal.Signals(number).name})"
        return f"the process exited with status {os.WEXITSTATUS(status)} (os._exit?)"

    def _stack(self) -> str:
        """The watchdog's dump as a traceback, most recent call last, the checker's frames left out."""
        self.stack.seek(0)
        lines = self.stack.read(MAX_OUTPUT).decode(errors="replace").splitlines()
        frames = [m.groups() for m in map(FRAME.match, lines) if m and not m[1].startswith(HERE)]
        out = []
        for filename, line, name in reversed(frames[:6]):
            out.append(f'  File "{filename}", line {line}, in {name}\n')
            text = linecache.getline(filename, int(line)).strip()
            if text:
                out.append(f"    {text}\n")
        return "".join(out)

    def kill(self):
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.status = os.waitpid(self.pid, 0)[1]

    def close(self):
        self.kill()
        os.close(self.fd)
        self.output.seek(0)
        printed = self.output.read(MAX_OUTPUT).decode(errors="replace")
        if printed:
            sys.stdout.write(printed)
        self.stack.close()
        self.output.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Capped(io.TextIOBase):
    """The learner's print() in the child, into a file the parent shows, at most MAX_OUTPUT bytes."""

    def __init__(self, file):
        self.file = file
        self.left = MAX_OUTPUT

    def write(self, text: str) -> int:
        data = str(text).encode(errors="replace")[:max(self.left, 0)]
        self.left -= len(data)
        self.file.write(data)
        return len(text)

    def flush(self):
        self.file.flush()


def limit_memory():
    """The child may grow MEMORY_BYTES past the size it was forked at (Linux counts it in /proc)."""
    try:
        with open("/proc/self/statm") as f:
            size = int(f.read().split()[0]) * resource.getpagesize()
        hard = resource.getrlimit(resource.RLIMIT_AS)[1]
        soft = size + MEMORY_BYTES
        resource.setrlimit(resource.RLIMIT_AS, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))
    except (OSError, ValueError):
        pass  # no /proc (macOS): the wall clock still stops a child that swaps


def write_all(fd: int, data: bytes):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
