"""No typed numbers: every number a lesson states comes from a cell that asked the engine."""
import re

import pytest

from tests.lessons.common import (NAMES, ROOT, VARIANTS, code_cells, markdown_cells, prose_literals,
                                  typed_numbers, variant_id)


@pytest.mark.parametrize("variant", VARIANTS, ids=variant_id)
def test_markdown_states_no_numbers(variant):
    source, lang = variant
    for text in markdown_cells(source, lang):
        assert typed_numbers(text) == [], f"typed number(s) in a markdown cell of {source.name}: {text[:200]!r}"


@pytest.mark.parametrize("variant", VARIANTS, ids=variant_id)
def test_computed_sentences_type_no_numbers(variant):
    source, lang = variant
    for code in code_cells(source, lang):
        for literal in prose_literals(code):
            assert typed_numbers(literal) == [], f"typed number in a say()/exercise() string: {literal!r}"


def test_the_checker_catches_numbers():
    assert typed_numbers("slot 10 is in block 2") == ["10", "2"]
    assert typed_numbers("four blocks") == ["four"]
    assert typed_numbers("see `slot = 2 * 4 + 2`, #144, seed 004, Q2, lesson 03, vLLM V1") == []


@pytest.mark.parametrize("variant", VARIANTS, ids=variant_id)
def test_local_links_resolve(variant):
    source, lang = variant
    notebook_dir = ROOT / "notebooks" / lang
    for text in markdown_cells(source, lang):
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if "://" in target:
                continue
            assert (notebook_dir / target).resolve().exists(), f"{source.name}: broken link {target}"


@pytest.mark.parametrize("name", NAMES)
def test_page_format(name):
    """Seed 004's page format: goal first, change-a-variable, exercises, recall, source, self-assessment, summary."""
    for lang, headings in {
        "en": ["The one thing this lesson nails down", "Change a variable", "Compute first, then check",
               "Closed-book recall", "Connect to the source", "Record where you stand", "Summary"],
        "zh": ["本课只拿下这一件事", "改变变量", "先算，再核对", "闭卷检索", "把结论落到源码", "记录你此刻能做到什么", "小结"],
    }.items():
        text = "\n".join(markdown_cells(ROOT / "lesson" / f"{name}.md", lang) + code_cells(ROOT / "lesson" / f"{name}.md", lang))
        positions = [text.find(h) for h in headings]
        assert all(p >= 0 for p in positions), f"{lang}/{name}: missing {[h for h, p in zip(headings, positions) if p < 0]}"
        assert positions == sorted(positions), f"{lang}/{name}: sections out of order"
        assert "L.header(" in text and "L.self_assessment(" in text
