"""The notebooks are built from lesson/ deterministically, and the two languages share their code."""
import shutil
import subprocess
import sys

import nbformat
import pytest

from blockviz.lessons import LESSONS
from tests.lessons.common import (LANG_LINE, LANGS, NAMES, ROOT, SOURCES, build_notebooks, code_cells,
                                  read)


def test_every_lesson_exists_in_both_languages_and_is_registered():
    for lang in LANGS:
        assert sorted(p.stem for p in SOURCES if p.parent.name == lang) == NAMES
    assert NAMES == list(LESSONS)[:len(NAMES)], "lessons must be registered in blockviz/lessons/catalog.py (LESSONS), in order"
    assert "00_start_here" in NAMES  # scripts/lessons.sh opens it


def test_notebooks_are_in_sync_with_sources():
    result = subprocess.run([sys.executable, str(ROOT / "scripts/build_notebooks.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_build_is_deterministic_and_stripped(source):
    first, second = build_notebooks.build(source), build_notebooks.build(source)
    assert first == second
    nb = nbformat.reads(first, as_version=4)
    nbformat.validate(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None
    assert nb.metadata.kernelspec.name == "python3"


@pytest.mark.parametrize("name", NAMES)
def test_en_and_zh_have_the_same_code(name):
    en = code_cells(ROOT / "lesson/en" / f"{name}.md")
    zh = code_cells(ROOT / "lesson/zh" / f"{name}.md")
    assert LANG_LINE.search(en[0]).group(1) == "en"
    assert LANG_LINE.search(zh[0]).group(1) == "zh"
    assert len(en) == len(zh)
    for k, (a, b) in enumerate(zip(en, zh)):
        assert a == LANG_LINE.sub('LANG = "en"', b), f"{name}: code cell {k} differs between en and zh"


@pytest.mark.parametrize("name", NAMES)
def test_cell_metadata_matches_between_languages(name):
    en = [c.metadata for c in read(ROOT / "lesson/en" / f"{name}.md").cells if c.cell_type == "code"]
    zh = [c.metadata for c in read(ROOT / "lesson/zh" / f"{name}.md").cells if c.cell_type == "code"]
    assert en == zh


def test_check_names_the_out_of_sync_files(tmp_path):
    for part in ("lesson", "notebooks", "scripts"):
        shutil.copytree(ROOT / part, tmp_path / part)
    script = tmp_path / "scripts/build_notebooks.py"
    assert subprocess.run([sys.executable, str(script), "--check"], capture_output=True).returncode == 0

    edited = tmp_path / "notebooks/en/00_start_here.ipynb"
    edited.write_text(edited.read_text(encoding="utf-8").replace("Start here", "Start HERE", 1), encoding="utf-8")
    (tmp_path / "notebooks/zh/99_orphan.ipynb").write_text("{}", encoding="utf-8")
    (tmp_path / "notebooks/zh/01_token_to_slot.ipynb").unlink(missing_ok=True)
    result = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True)
    assert result.returncode == 1
    assert "notebooks/en/00_start_here.ipynb" in result.stderr
    assert "notebooks/zh/99_orphan.ipynb" in result.stderr
    if (ROOT / "lesson/zh/01_token_to_slot.md").exists():
        assert "notebooks/zh/01_token_to_slot.ipynb (missing" in result.stderr

    subprocess.run([sys.executable, str(script)], check=True, capture_output=True)
    assert subprocess.run([sys.executable, str(script), "--check"], capture_output=True).returncode == 0
    assert not (tmp_path / "notebooks/zh/99_orphan.ipynb").exists()
    assert edited.read_bytes() == (ROOT / "notebooks/en/00_start_here.ipynb").read_bytes()
