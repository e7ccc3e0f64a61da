"""The course map stays true: every lesson 00 lists exists, and no lesson calls itself the last."""
import ast
import re

import pytest

from blockviz.lessons.bilingual import LANGS, prose_of
from blockviz.course import LESSONS
from tests.lessons.common import ROOT, SOURCES, code_cells, markdown_cells

START = ROOT / "lesson" / "00_start_here.md"
LESSON_NAME = re.compile(r"^(?:\d\d[a-z]?|b\d)_[a-z0-9_]+$")


def names_in_start_here(lang: str) -> set[str]:
    """The lessons 00 names: its map iterates the catalog; its code names lessons as string literals
    (the questions' table, the path) and its prose links their notebooks."""
    names = set(LESSONS)
    for code in code_cells(START, lang):
        names |= {n.value for n in ast.walk(ast.parse(code))
                  if isinstance(n, ast.Constant) and isinstance(n.value, str) and LESSON_NAME.match(n.value)}
    for text in markdown_cells(START, lang):
        names |= set(re.findall(r"\]\(([^)/]+)\.ipynb\)", text))
    return names


@pytest.mark.parametrize("lang", LANGS)
def test_every_lesson_the_map_lists_exists(lang):
    for name in sorted(names_in_start_here(lang)):
        assert name in LESSONS, f"00 ({lang}) names {name}, which the catalog does not have"
        assert (ROOT / "lesson" / f"{name}.md").exists(), f"00 ({lang}) lists {name}: no lesson/{name}.md"
        assert (ROOT / "notebooks" / lang / f"{name}.ipynb").exists(), f"00 ({lang}) lists {name}: no notebook"


def build_after(lang: str) -> dict[str, str]:
    """00's BUILD_AFTER: each build-it-yourself stage and the lesson whose end links to it."""
    for code in code_cells(START, lang):
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "BUILD_AFTER":
                return ast.literal_eval(node.value)
    raise AssertionError("00 has no BUILD_AFTER")


@pytest.mark.parametrize("lang", LANGS)
def test_each_build_stage_is_linked_from_the_end_of_the_lesson_00_places_it_after(lang):
    placed = build_after(lang)
    assert sorted(placed) == sorted(name for name in LESSONS if name.startswith("b")), "00 places every stage"
    for stage, after in placed.items():
        last = markdown_cells(ROOT / "lesson" / f"{after}.md", lang)[-1]
        assert f"]({stage}.ipynb)" in last, f"{lang}/{after} must end with a link to {stage} (00 says it follows {after})"


LAST = re.compile(r"(?i)\b(?:the\s+)?(?:last|final)\s+lesson\b|最后一课|最后一节课")


@pytest.mark.parametrize("source", SOURCES, ids=lambda s: s.stem)
def test_no_lesson_calls_itself_the_last(source):
    for lang in LANGS:
        for text in prose_of(source, lang):
            assert not LAST.search(text), f"{lang}/{source.stem} calls a lesson the last: {LAST.search(text)[0]!r}"


def test_the_checks_can_fail():
    assert LAST.search("This is the last lesson of the course.") and LAST.search("这是本课程的最后一课。")
    assert LESSON_NAME.match("03b_block_sharing") and not LESSON_NAME.match("the cat sat")
