"""Where the learner's code is (the engine step, the method it is in), in memory a killed child
leaves behind: the checker's parent reads it to say where a hang or an exit happened."""
import mmap
import struct

FORMAT = "q64s"  # the step, the method's name (utf-8, zero-padded)


class Whereabouts:

    def __init__(self):
        # anonymous and shared: made at import, before any fork, so every child writes where the parent reads
        self.memory = mmap.mmap(-1, struct.calcsize(FORMAT))
        self.step, self.method = 0, ""

    def at(self, step: int | None = None, method: str | None = None):
        self.step = self.step if step is None else step
        self.method = self.method if method is None else method
        self.memory[:] = struct.pack(FORMAT, self.step, self.method.encode()[:64])

    def read(self) -> tuple[int, str]:
        step, method = struct.unpack(FORMAT, self.memory[:])
        return step, method.rstrip(b"\0").decode(errors="replace")


WHERE = Whereabouts()
