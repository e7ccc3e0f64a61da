"""The check behind blockviz's kept copies of upstream files (blockviz/engine: nano-vllm's;
blockviz/radix: SGLang's): each file is upstream's, line for line, except for the differences an
allow-list names, each with its reason. A test module names its files, its upstream text (with the
package name rewritten) and its list; a difference the list lacks fails, and so does a listed one
that is gone."""
import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

BLOCKVIZ = Path(__file__).resolve().parents[1] / "blockviz"

Difference = tuple[str, tuple[int, int], str]   # (file, upstream's lines, blockviz's text there)


@dataclass(frozen=True)
class Allowed:
    """blockviz's `file` has `new` (whole lines, each ending in a newline; "" when it drops them)
    where upstream's has its lines `lines` = (first, last), 1-based; (n, n - 1) inserts before line n."""
    file: str
    lines: tuple[int, int]
    why: str
    new: str


@dataclass(frozen=True)
class KeptCopy:
    files: list[str]                  # under blockviz/
    upstream: Callable[[str], str]    # a file's upstream text, its package name rewritten to blockviz's
    allowed: list[Allowed]

    def differences(self, file: str, root: Path = BLOCKVIZ) -> list[Difference]:
        ours = (root / file).read_text(encoding="utf-8").splitlines()
        theirs = self.upstream(file).splitlines()
        opcodes = difflib.SequenceMatcher(None, theirs, ours, autojunk=False).get_opcodes()
        return [(file, (i1 + 1, i2), "".join(line + "\n" for line in ours[j1:j2]))
                for tag, i1, i2, j1, j2 in opcodes if tag != "equal"]

    def unlisted_and_gone(self, root: Path = BLOCKVIZ) -> tuple[list[Difference], list[Difference]]:
        """The differences the list lacks, and the listed ones that are no longer there."""
        found = [d for file in self.files for d in self.differences(file, root)]
        listed = [(a.file, a.lines, a.new) for a in self.allowed]
        return [d for d in found if d not in listed], [d for d in listed if d not in found]

    def problems(self, project: str) -> str:
        """'' when every difference is listed and every listed one exists; else what to fix."""
        unlisted, gone = self.unlisted_and_gone()
        if unlisted:
            return f"differences from {project} that ALLOWED does not list:\n" + "\n".join(entry(*d) for d in unlisted)
        if gone:
            return f"ALLOWED lists differences that no longer exist: {[(f, lines) for f, lines, _ in gone]}"
        return ""

    def entries_are_sound(self) -> bool:
        """Every entry says why, names one of the files, and is listed once."""
        return (all(a.why.strip() and a.file in self.files for a in self.allowed)
                and len({(a.file, a.lines) for a in self.allowed}) == len(self.allowed))

    def edited(self, tmp_path: Path, file: str, old: str, new: str) -> Path:
        """A copy of blockviz's files under tmp_path with one edit: the check's own reference."""
        for f in self.files:
            (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / f).write_text((BLOCKVIZ / f).read_text(encoding="utf-8"), encoding="utf-8")
        source = (tmp_path / file).read_text(encoding="utf-8")
        assert old in source
        (tmp_path / file).write_text(source.replace(old, new, 1), encoding="utf-8")
        return tmp_path


def entry(file: str, lines: tuple[int, int], new: str) -> str:
    """A difference written as an ALLOWED entry, to paste in with its reason."""
    return f"    Allowed({file!r}, {lines},\n            'WHY',\n            '''\\\n{new}'''),"
