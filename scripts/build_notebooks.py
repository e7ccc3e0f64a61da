"""Build notebooks/en/NAME.ipynb and notebooks/zh/NAME.ipynb from one bilingual source lesson/NAME.md.

    python scripts/build_notebooks.py            # write every notebook that changed
    python scripts/build_notebooks.py --check    # write nothing; exit 1 naming what is out of sync

A source is MyST markdown (jupytext) holding both languages: blockviz/lessons/bilingual.py says what
each notebook keeps. The output is deterministic: outputs stripped, execution counts cleared, cell ids derived from the
cell's place in the lesson, notebook metadata fixed. The same sources give byte-identical notebooks.
"""
import argparse
import sys
from pathlib import Path

import jupytext
import nbformat

from blockviz.i18n import t
from blockviz.lessons.bilingual import LANGS, cells_for

ROOT = Path(__file__).resolve().parents[1]
LESSON_DIR = ROOT / "lesson"
NOTEBOOK_DIR = ROOT / "notebooks"
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
LANGUAGE_NAMES = {"en": "English", "zh": "简体中文"}


def sources(root: Path = ROOT) -> list[Path]:
    return sorted((root / "lesson").glob("*.md"))


def target(source: Path, lang: str, root: Path = ROOT) -> Path:
    return root / "notebooks" / lang / (source.stem + ".ipynb")


def build(source: Path, lang: str, root: Path = ROOT) -> str:
    """The `lang` notebook's text for one lesson source."""
    nb = jupytext.read(source, fmt="md:myst")
    cells = []
    for index, cell in enumerate(cells_for(nb, lang)):
        metadata = {k: v for k, v in cell.metadata.items() if k not in ("trusted", "execution")}
        cid = f"{source.stem[:2]}-{index:03d}"
        if cell.cell_type == "code":
            new = nbformat.v4.new_code_cell(cell.source, metadata=metadata, id=cid)
        elif cell.cell_type == "markdown":
            new = nbformat.v4.new_markdown_cell(cell.source, metadata=metadata, id=cid)
        else:
            new = nbformat.v4.new_raw_cell(cell.source, metadata=metadata, id=cid)
        cells.append(new)
    first = next(cell for cell in cells if cell.cell_type == "markdown")
    first.source += "\n\n" + t("views.reopen", lang)  # docs/ARCHITECTURE.md, Lessons: why not saved widget state
    out = nbformat.v4.new_notebook(cells=cells)
    out.metadata = {
        "kernelspec": dict(KERNELSPEC),
        "language_info": {"name": "python"},
        "blockviz": {"source": source.relative_to(root).as_posix(), "lang": lang,
                     "note": "Built by scripts/build_notebooks.py; edit the source, not this file."},
    }
    nbformat.validate(out)
    return nbformat.writes(out) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a notebook is out of sync")
    args = parser.parse_args(argv)
    stale, written = [], []
    expected = set()
    for source, lang in ((s, lang) for s in sources() for lang in LANGS):
        path = target(source, lang)
        expected.add(path)
        text = build(source, lang)
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        if args.check:
            stale.append(f"{path.relative_to(ROOT)} (out of sync with {source.relative_to(ROOT)})"
                         if current is not None else f"{path.relative_to(ROOT)} (missing; source {source.relative_to(ROOT)})")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            written.append(path.relative_to(ROOT))
    orphans = [p for lang in LANGS for p in sorted((NOTEBOOK_DIR / lang).glob("*.ipynb")) if p not in expected]
    if args.check:
        stale += [f"{p.relative_to(ROOT)} (no source lesson/{p.stem}.md)" for p in orphans]
        if stale:
            print("notebooks out of sync with lesson/ (run: python scripts/build_notebooks.py):", file=sys.stderr)
            for line in stale:
                print(f"  {line}", file=sys.stderr)
            return 1
        print(f"{len(expected)} notebooks in sync with lesson/")
        return 0
    for p in orphans:
        p.unlink()
        print(f"removed {p.relative_to(ROOT)} (its source is gone)")
    for p in written:
        print(f"wrote {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
