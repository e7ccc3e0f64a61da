"""The engine's own methods as text, and "break it" mutants made from that text: one line of the
engine's method changed, so a lesson's broken version can never drift from the engine it breaks."""
import inspect
import linecache
import textwrap

from blockviz.engine import block_manager as engine_module
from blockviz.engine.block_manager import BlockManager


def source(method: str, cls: type = BlockManager) -> str:
    """The engine's `method` (or `cls`'s), dedented: the solution a lesson reveals on request."""
    return textwrap.dedent(inspect.getsource(getattr(cls, method)))


def mutant(name: str, method: str, old: str, new: str) -> type:
    """A BlockManager subclass called `name` whose `method` is the engine's with `old` replaced by
    `new` (ValueError when the engine's method has no `old`). Its source is kept for tracebacks."""
    text = source(method)
    if old not in text:
        raise ValueError(f"the engine's {method} has no {old!r}")
    text = text.replace(old, new)
    filename = f"<{name}.{method}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = dict(vars(engine_module))  # the names the engine's method reads (np, xxhash, Sequence)
    exec(compile(text, filename, "exec"), namespace)
    return type(name, (BlockManager,), {method: namespace[method], "__doc__": f"{method}: {old!r} -> {new!r}"})
