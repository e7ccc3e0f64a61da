import re
from string import Formatter

import pytest

from blockviz.i18n import LANGS, STRINGS, t
from blockviz.i18n.views import STRINGS as VIEW_STRINGS


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in Formatter().parse(text) if name}


def test_every_view_string_has_every_language_with_the_same_fields():
    for key, texts in VIEW_STRINGS.items():
        assert set(texts) - {"en.one"} == set(LANGS), key
        assert all(texts[lang].strip() for lang in LANGS), key
        assert fields(texts["en"]) == fields(texts["zh"]), key
        if "en.one" in texts:  # the singular: the same text for one thing, so without {n}
            assert "n" in fields(texts["en"]) and fields(texts["en.one"]) == fields(texts["en"]) - {"n"}, key


@pytest.mark.parametrize("n, text", [(1, "request A arrives with 1 prompt token"),
                                     (2, "request A arrives with 2 prompt tokens"),
                                     (0, "request A arrives with 0 prompt tokens")])
def test_english_counts_one_thing_in_the_singular(n, text):
    assert t("ev.add", "en", seq="A", n=n) == text
    assert t("ev.add", "zh", seq="A", n=n) == f"请求A到达，prompt有{n}个token"


def test_view_strings_are_merged_into_the_table():
    assert VIEW_STRINGS.items() <= STRINGS.items()


def test_t_formats_and_checks():
    assert t("pool.header", "en", step=3, phase="decode", n=12, free=2, B=4).startswith("step 3 · decode")
    assert "第3步" in t("pool.header", "zh", step=3, phase="解码", n=12, free=2, B=4)
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        t("state.free", "fr")


@pytest.mark.parametrize("lang", LANGS)
def test_an_unknown_key_is_an_error_in_every_language(lang):
    with pytest.raises(KeyError, match="no interface string 'no.such.key'"):
        t("no.such.key", lang)


def test_a_text_missing_in_one_language_is_an_error_not_the_other_language(monkeypatch):
    monkeypatch.setitem(STRINGS, "test.english_only", {"en": "only in English"})
    assert t("test.english_only", "en") == "only in English"
    with pytest.raises(KeyError, match="'test.english_only' has no 'zh' text"):
        t("test.english_only", "zh")


def test_the_singular_is_english_only_and_only_for_n_1(monkeypatch):
    monkeypatch.setitem(STRINGS, "test.count", {"en": "{n} blocks", "en.one": "1 block", "zh": "{n}个块"})
    assert [t("test.count", "en", n=n) for n in (0, 1, 2)] == ["0 blocks", "1 block", "2 blocks"]
    assert t("test.count", "zh", n=1) == "1个块"


def chinese_prose(text: str) -> str:
    """A Chinese text without its code: `spans`, and names such as is_prefill or paged_decode_attention."""
    return re.sub(r"`[^`]*`", " ", text)


def test_chinese_uses_the_lessons_terms():
    """逐出 for evict (never 驱逐), and 预填充 / 解码 for prefill / decode, as the lessons say them."""
    evicts = {key for key, texts in STRINGS.items() if "驱逐" in texts["zh"]}
    english = {key for key, texts in STRINGS.items()
               if re.search(r"(?<![\w])(prefill|decode)(?![\w(])", chinese_prose(texts["zh"]), re.I)}
    assert (evicts, english) == (set(), set())
    assert re.search(r"(?<![\w])(prefill|decode)(?![\w(])", chinese_prose("分块 prefill、`decode` 与 prepare_prefill"))
    assert not re.search(r"(?<![\w])(prefill|decode)(?![\w(])", chinese_prose("`decode` 与 prepare_prefill、is_decode"))
