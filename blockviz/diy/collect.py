"""The learner's methods from the build-it-yourself notebooks, put into one class: lesson b4 ends by
checking all of them together. Each notebook's "Write it" cell (the code cell that starts with
`class MyBlockManager(BlockManager):`) is read from the saved notebook and run again, as the
learner's own kernel would run it; the classes are then combined, the first notebook's method
winning where two define the same name."""
from collections import deque
from pathlib import Path

import nbformat

from blockviz.engine.block_manager import Block, BlockManager
from blockviz.engine.sequence import Sequence

WRITE_IT = "class MyBlockManager(BlockManager):"
# what the build-it notebooks import before their "Write it" cell
NAMES = {"Block": Block, "BlockManager": BlockManager, "Sequence": Sequence, "deque": deque}


def written_class(notebook: Path) -> type | None:
    """The MyBlockManager the notebook's "Write it" cell defines (None: the notebook has no such cell)."""
    notebook = Path(notebook)
    cells = [cell.source for cell in nbformat.read(notebook, as_version=4).cells
             if cell.cell_type == "code" and cell.source.lstrip().startswith(WRITE_IT)]
    if not cells:
        return None
    namespace = dict(NAMES)
    exec(compile(cells[0], str(notebook), "exec"), namespace)  # the learner's own code, in their own kernel
    return namespace["MyBlockManager"]


def assembled(notebooks: list[Path], name: str = "YourBlockManager") -> type:
    """One BlockManager subclass with every method the notebooks' classes define; a method still a
    bare `raise NotImplementedError` stays unwritten, so check() uses the engine's for it."""
    classes = [cls for cls in (written_class(path) for path in notebooks) if cls is not None]
    return type(name, tuple(classes) or (BlockManager,), {})
