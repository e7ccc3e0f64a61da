"""Chinese text uses full-width punctuation: a half-width , : ; ? ! ( ) next to a Chinese character
(spaces skipped) is a typo for ，：；？！（）. Checked in every Chinese interface string
(blockviz/i18n/*) and in the Chinese notebooks' prose, computed sentences and code comments."""
import re

import pytest

from blockviz.i18n import STRINGS
from tests.lessons.common import SOURCES, code_cells, markdown_cells, prose_literals

HAN = r"[\u3400-\u9fff]"
HALF_WIDTH = re.compile(rf"(?<={HAN}) *[,:;?!()]|[,:;?!()] *(?={HAN})")
NOT_TEXT = [  # code, placeholders, links and HTML keep their ASCII punctuation
    r"(?s)```.*?```", r"`[^`]*`", r"<code>.*?</code>", r"\{[^{}]*\}", r"\]\([^)]*\)", r"<[^<>]*>", r"\$[^$]*\$",
    r"https?://\S+",
    r"[A-Za-z_][\w.]*\([^()\u3400-\u9fff]*\)",  # a call such as len(seq) or can_allocate(R)
]


def half_width(text: str) -> list[str]:
    """Each half-width mark inside Chinese text, with a little context: "…数量,以及…"."""
    for pattern in NOT_TEXT:
        text = re.sub(pattern, " ", text)
    return [text[max(0, m.start() - 6):m.end() + 6] for m in HALF_WIDTH.finditer(text)]


def test_the_checker_finds_half_width_marks_in_chinese_only():
    assert half_width("数量,以及") == ["数量,以及"] and half_width("状态: 空闲") == ["状态: 空闲"]
    assert half_width("（命中）") == [] and half_width("块 (block)") == ["块 (block)"]
    assert half_width("第 {n} 步，调用 `f(x, y)`：见 [链接](a.ipynb)") == []
    assert half_width("A, B and C (in English)") == [] and half_width("len(seq) 包含它") == []
    assert half_width("显示键(K)") == ["显示键(K)"]


def test_interface_strings():
    bad = {key: found for key, texts in STRINGS.items() if (found := half_width(texts.get("zh", "")))}
    assert bad == {}


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_lesson_prose(source):
    texts = markdown_cells(source, "zh") + [s for code in code_cells(source, "zh") for s in prose_literals(code)
                                            if re.search(HAN, s)]
    texts += [line.split("# ", 1)[1] for code in code_cells(source, "zh") for line in code.splitlines()
              if "# " in line and re.search(HAN, line.split("# ", 1)[1])]
    assert [found for text in texts for found in half_width(text)] == []
