"""Each notebook is built from its bilingual lesson source deterministically, in its own language."""
import re
import shutil
import subprocess
import sys

import nbformat
import pytest

from blockviz.i18n import t
from blockviz.lessons import LESSONS
from blockviz.lessons.bilingual import LANGS, code_for, unpaired_prose
from tests.lessons.common import (LANG_LINE, NAMES, ROOT, SOURCES, VARIANTS, build_notebooks, code_cells, read,
                                  variant_id)


def test_every_lesson_is_registered_in_order():
    assert NAMES == list(LESSONS)[:len(NAMES)], "lessons must be registered in blockviz/course.py (LESSONS), in order"
    assert "00_start_here" in NAMES  # scripts/lessons.sh opens it


def test_notebooks_are_in_sync_with_sources():
    result = subprocess.run([sys.executable, str(ROOT / "scripts/build_notebooks.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("variant", VARIANTS, ids=variant_id)
def test_build_is_deterministic_and_stripped(variant):
    first, second = build_notebooks.build(*variant), build_notebooks.build(*variant)
    assert first == second
    nb = nbformat.reads(first, as_version=4)
    nbformat.validate(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None
        assert "lang" not in cell.metadata
    assert nb.metadata.kernelspec.name == "python3"
    assert nb.metadata.blockviz.lang == variant[1]
    # saved without widget state: the first cell says to run the cells again after reopening
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.endswith(t("views.reopen", variant[1]))


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_every_prose_cell_comes_in_both_languages(source):
    assert unpaired_prose(read(source)) == []


@pytest.mark.parametrize("variant", VARIANTS, ids=variant_id)
def test_each_notebook_speaks_its_language(variant):
    source, lang = variant
    other = "zh" if lang == "en" else "en"
    code = code_cells(source, lang)
    assert LANG_LINE.search(code[0]).group(1) == lang
    for cell in code:
        assert f"#[{other}]" not in cell and f"#[{lang}]" not in cell
        assert not re.search(rf"[(,]\s*{other}=", cell), f"{other}= left in {lang} code: {cell[:200]!r}"


def test_code_for_keeps_one_language():
    code = ('LANG = "en"\n'
            'B = 4  #[en] block size #[zh] 块大小\n'
            '#[en] only English\n'
            '    #[zh] 只有中文\n'
            'say(en=f"{B} slots",\n    zh=f"{B} 个槽位")\n'
            'L.exercise("q?", "问？", 3, explain_en="because", explain_zh="因为", hint_en="h", hint_zh="提示")\n'
            'say(zh="先", en="后")\n')
    assert code_for(code, "zh") == ('LANG = "zh"\n'
                                   'B = 4  # 块大小\n'
                                   '    # 只有中文\n'
                                   'say(zh=f"{B} 个槽位")\n'
                                   'L.exercise("q?", "问？", 3, explain_en="because", explain_zh="因为", hint_en="h", hint_zh="提示")\n'
                                   'say(zh="先")\n')
    assert code_for(code, "en") == ('LANG = "en"\n'
                                   'B = 4  # block size\n'
                                   '# only English\n'
                                   'say(en=f"{B} slots")\n'
                                   'L.exercise("q?", "问？", 3, explain_en="because", explain_zh="因为", hint_en="h", hint_zh="提示")\n'
                                   'say(en="后")\n')


def test_unpaired_prose_is_found():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("a", metadata={"lang": "en"}),
        nbformat.v4.new_code_cell("x = 1"),
        nbformat.v4.new_markdown_cell("b", metadata={"lang": "en"}),
        nbformat.v4.new_markdown_cell("乙", metadata={"lang": "zh"}),
    ])
    assert len(unpaired_prose(nb)) == 1


def test_check_names_the_out_of_sync_files(tmp_path):
    # two lessons are enough to name each kind of difference (the whole repository's sync is the test above);
    # all of them would make each of the four runs below build every notebook again
    shutil.copytree(ROOT / "scripts", tmp_path / "scripts")
    for name in ("00_start_here", "01_token_to_slot"):
        (tmp_path / "lesson").mkdir(exist_ok=True)
        shutil.copy(ROOT / "lesson" / f"{name}.md", tmp_path / "lesson")
        for lang in LANGS:
            (tmp_path / "notebooks" / lang).mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / "notebooks" / lang / f"{name}.ipynb", tmp_path / "notebooks" / lang)
    script = tmp_path / "scripts/build_notebooks.py"
    assert subprocess.run([sys.executable, str(script), "--check"], capture_output=True).returncode == 0

    edited = tmp_path / "notebooks/en/00_start_here.ipynb"
    edited.write_text(edited.read_text(encoding="utf-8").replace("Start here", "Start HERE", 1), encoding="utf-8")
    (tmp_path / "notebooks/zh/99_orphan.ipynb").write_text("{}", encoding="utf-8")
    (tmp_path / "notebooks/zh/01_token_to_slot.ipynb").unlink()
    result = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True)
    assert result.returncode == 1
    assert "notebooks/en/00_start_here.ipynb" in result.stderr
    assert "notebooks/zh/99_orphan.ipynb" in result.stderr
    assert "notebooks/zh/01_token_to_slot.ipynb (missing" in result.stderr

    subprocess.run([sys.executable, str(script)], check=True, capture_output=True)
    assert subprocess.run([sys.executable, str(script), "--check"], capture_output=True).returncode == 0
    assert not (tmp_path / "notebooks/zh/99_orphan.ipynb").exists()
    assert edited.read_bytes() == (ROOT / "notebooks/en/00_start_here.ipynb").read_bytes()
