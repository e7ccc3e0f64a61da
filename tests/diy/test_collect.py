"""collect: the learner's "Write it" cells read back from saved notebooks and combined into one class."""
import textwrap

import nbformat

from blockviz.diy import check
from blockviz.diy.collect import assembled, written_class
from blockviz.diy.stages import METHODS, WHOLE as STAGES  # b4 puts the whole engine's stages together
from blockviz.diy.mutants import source


def notebook(tmp_path, name: str, methods: dict[str, str] | None) -> str:
    """A saved notebook whose "Write it" cell defines these methods (None: it has no such cell)."""
    cells = [nbformat.v4.new_code_cell("from blockviz.engine.block_manager import BlockManager")]
    if methods is not None:
        body = "".join(textwrap.indent(code, "    ") + "\n" for code in methods.values())
        cells.append(nbformat.v4.new_code_cell("class MyBlockManager(BlockManager):\n\n" + body))
    path = tmp_path / f"{name}.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)
    return path


def engine_methods(stage) -> dict[str, str]:
    return {name: source(name) for name in stage.methods}


def test_every_stage_written_in_its_own_notebook_is_checked_together(tmp_path):
    paths = [notebook(tmp_path, stage.lesson, engine_methods(stage)) for stage in STAGES]
    mine = assembled(paths)
    assert all(name in vars(written_class(path)) for path, stage in zip(paths, STAGES) for name in stage.methods)
    report = check(mine, workloads=3)
    assert report.written == METHODS and report.passed


def test_a_stub_stays_unwritten_and_a_notebook_without_the_cell_adds_nothing(tmp_path):
    allocate, deallocate = STAGES[0], STAGES[1]
    stubbed = {name: f"def {name}(self, *args):\n    raise NotImplementedError\n" for name in deallocate.methods}
    paths = [notebook(tmp_path, "b1", engine_methods(allocate)), notebook(tmp_path, "b2", stubbed),
             notebook(tmp_path, "empty", None)]
    report = check(assembled(paths), workloads=2)
    assert report.written == allocate.methods and report.missing == deallocate.methods + STAGES[2].methods + STAGES[3].methods


def test_a_wrong_method_from_one_notebook_fails_the_whole_check(tmp_path):
    forward = {"deallocate": source("deallocate").replace("reversed(seq.block_table)", "seq.block_table")}
    assert forward["deallocate"] != source("deallocate")
    paths = [notebook(tmp_path, "b1", engine_methods(STAGES[0])), notebook(tmp_path, "b2", forward)]
    assert not check(assembled(paths), workloads=10).passed
