"""Interface strings in English and Chinese: one table, merged from one module per area.

Each area module (views.py, exercises.py, demo.py, lessons.py, vllm.py, diy.py, router.py) defines STRINGS = {key: {"en": ..., "zh": ...}}.
A text that counts `n` things may add "en.one", its English form for n == 1 ("1 token", not "1 tokens");
Chinese needs none.
"""
from importlib import import_module

LANGS = ("en", "zh")
AREAS = ("views", "exercises", "demo", "lessons", "vllm", "diy", "router")


def _merge() -> dict[str, dict[str, str]]:
    table: dict[str, dict[str, str]] = {}
    for area in AREAS:
        for key, texts in import_module(f"{__name__}.{area}").STRINGS.items():
            if key in table:
                raise ValueError(f"i18n key {key!r} is defined twice (again in {area}.py)")
            table[key] = texts
    return table


STRINGS = _merge()


def t(key: str, lang: str = "en", **fmt) -> str:
    """The text of `key` in `lang` (English when that language lacks it), formatted with fmt."""
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}; choose one of {LANGS}")
    texts = STRINGS.get(key)
    if texts is None:
        raise KeyError(f"no interface string {key!r}")
    text = texts.get(lang) or texts["en"]
    if fmt.get("n") == 1 and f"{lang}.one" in texts:
        text = texts[f"{lang}.one"]
    return text.format(**fmt) if fmt else text
