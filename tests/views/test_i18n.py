"""The one table of interface strings (blockviz/i18n) and its one lookup, t."""
import ast
import re
from pathlib import Path
from string import Formatter

import pytest

import blockviz
from blockviz.i18n import LANGS, STRINGS, t
from blockviz.i18n.views import STRINGS as VIEW_STRINGS

PACKAGE = Path(blockviz.__file__).parent
# texts whose placeholders differ by language on purpose
OWN_FIELDS = {"question.mistake",         # the diagnosis a lesson wrote in each language: {why_en} / {why_zh}
              "lesson.estimate.reading"}  # Chinese prose is counted in Han characters too: {han}, {hpm}


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in Formatter().parse(text) if name}


def test_every_string_has_every_language_with_the_same_fields():
    for key, texts in STRINGS.items():
        assert set(texts) - {"en.one"} == set(LANGS), key
        assert all(texts[lang].strip() for lang in LANGS), key
        assert fields(texts["en"]) == fields(texts["zh"]) or key in OWN_FIELDS, key
        if "en.one" in texts:  # the singular: the same text for one thing, so without {n}
            assert "n" in fields(texts["en"]) and fields(texts["en.one"]) == fields(texts["en"]) - {"n"}, key


def defined_keys(module: Path) -> list[str]:
    """The keys of a module's STRINGS literal as written, repeats included (a dict keeps only the last)."""
    tree = ast.parse(module.read_text(encoding="utf-8"))
    tables = [node.value for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
              and isinstance(node.value, ast.Dict)]
    return [key.value for table in tables for key in table.keys]


def test_no_key_is_defined_twice():
    seen: dict[str, list[str]] = {}
    for module in sorted((PACKAGE / "i18n").rglob("*.py")):
        for key in defined_keys(module):
            seen.setdefault(key, []).append(str(module.relative_to(PACKAGE)))
    assert {key: where for key, where in seen.items() if len(where) > 1} == {}
    assert len(seen) == len(STRINGS)  # and every module under i18n that defines strings is in the table


def test_a_key_written_twice_in_one_table_is_found(tmp_path):
    module = tmp_path / "area.py"
    module.write_text('STRINGS = {"a.b": {"en": "1", "zh": "1"}, "a.b": {"en": "2", "zh": "2"}}\n')
    assert defined_keys(module) == ["a.b", "a.b"]


KEY = re.compile(r"[a-z_]+(?:\.[\w\-]+)+")
NOT_KEYS = re.compile(r".*\.(?:js|css|md|ipynb)|vllm\.entrypoints\..*")  # files and modules named in code
HEADS = {key.split(".")[0] for key in STRINGS}


def unknown_keys(source: str) -> set[str]:
    """The keys a module's code names that the table lacks: each literal that reads as a key of one of the
    table's areas ("ex.check.wrong"), and each f-string one ("ex.set.{name}.intro") that matches no key."""
    unknown = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            key = node.value
            if KEY.fullmatch(key) and key.split(".")[0] in HEADS and not NOT_KEYS.fullmatch(key) and key not in STRINGS:
                unknown.add(key)
        elif isinstance(node, ast.JoinedStr):
            literal = "".join(v.value for v in node.values if isinstance(v, ast.Constant))
            if not (re.fullmatch(r"[a-z_]+\.[\w.\-]*", literal) and literal.split(".")[0] in HEADS):
                continue
            pattern = "".join(re.escape(v.value) if isinstance(v, ast.Constant) else ".+" for v in node.values)
            if not NOT_KEYS.fullmatch(pattern) and not any(re.fullmatch(pattern, key) for key in STRINGS):
                unknown.add(pattern)
    return unknown


def test_every_key_the_code_names_is_in_the_table():
    unknown = {str(path.relative_to(PACKAGE)): found for path in sorted(PACKAGE.rglob("*.py"))
               if "i18n" not in path.parts and (found := unknown_keys(path.read_text(encoding="utf-8")))}
    assert unknown == {}


def test_the_scan_finds_a_missing_key():
    assert unknown_keys('t("ex.check.wrong"); t("ex.check.wrnog"); t(f"ex.set.{name}.intro")') == {"ex.check.wrnog"}
    assert unknown_keys('Feedback(f"slots.mis.{name}"); t(f"ex.set.{name}.outro")') == {r"ex\.set\..+\.outro"}
    assert unknown_keys('open("pool.js"); x = "not a key"') == set()


def test_view_strings_are_merged_into_the_table():
    assert VIEW_STRINGS.items() <= STRINGS.items()


@pytest.mark.parametrize("n, text", [(1, "request A arrives with 1 prompt token"),
                                     (2, "request A arrives with 2 prompt tokens"),
                                     (0, "request A arrives with 0 prompt tokens")])
def test_english_counts_one_thing_in_the_singular(n, text):
    assert t("ev.add", "en", seq="A", n=n) == text
    assert t("ev.add", "zh", seq="A", n=n) == f"请求A到达，prompt有{n}个token"


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
