"""Interface strings in English and Chinese: one table, merged from every module under blockviz/i18n.

Each module that defines STRINGS = {key: {"en": ..., "zh": ...}} adds its keys: views.py, demo.py,
lessons.py, vllm.py, diy.py, router.py, traffic.py, commands.py for their areas, and exercises/ one
module per owner, at the owner's path (the strings of blockviz/exercises/kinds/slots.py are in
exercises/kinds/slots.py).
A text that counts `n` things may add "en.one", its English form for n == 1 ("1 token", not "1 tokens");
Chinese needs none.
"""
import pkgutil
from importlib import import_module

LANGS = ("en", "zh")


def _merge() -> dict[str, dict[str, str]]:
    table: dict[str, dict[str, str]] = {}
    where: dict[str, str] = {}
    for module in pkgutil.walk_packages(__path__, f"{__name__}."):
        strings = getattr(import_module(module.name), "STRINGS", {})
        for key, texts in strings.items():
            if key in table:
                raise ValueError(f"i18n key {key!r} is defined twice ({where[key]} and {module.name})")
            table[key], where[key] = texts, module.name
    return table


STRINGS = _merge()


def t(key: str, lang: str = "en", **fmt) -> str:
    """The text of `key` in `lang`, formatted with fmt. An unknown key, or a key without a text in
    `lang`, raises KeyError: a missing string fails the tests, never shows a key or the other language."""
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}; choose one of {LANGS}")
    texts = STRINGS.get(key)
    if texts is None:
        raise KeyError(f"no interface string {key!r}")
    if lang not in texts:
        raise KeyError(f"interface string {key!r} has no {lang!r} text")
    text = texts[f"{lang}.one"] if fmt.get("n") == 1 and f"{lang}.one" in texts else texts[lang]
    return text.format(**fmt) if fmt else text
