"""A teacher's sheet: exercises to print, then an answer key with the working (Markdown)."""
from blockviz.exercises.core import Exercise
from blockviz.exercises.kinds import KINDS
from blockviz.i18n import t


def sheet_exercises(count: int, kinds: list[str] | None = None, seed: int = 0, lang: str = "en") -> list[Exercise]:
    """`count` instances cycling through `kinds` (all by default), seeds seed, seed+1, ..."""
    from blockviz.exercises import make
    kinds = kinds or list(KINDS)
    return [make(kinds[i % len(kinds)], seed + i, lang=lang) for i in range(count)]


def render_sheet(exercises: list[Exercise], lang: str = "en", title: str | None = None) -> str:
    parts = [f"# {title or t('ex.sheet.title', lang)}", t("ex.sheet.intro", lang)]
    for i, ex in enumerate(exercises, 1):
        parts.append(f"## {i}\n\n{ex.prompt_in(lang)}\n\n{t('ex.sheet.answer_line', lang)}")
    parts.append('<div style="page-break-before: always"></div>\n\n'
                 f"# {t('ex.sheet.key', lang)}")
    for i, ex in enumerate(exercises, 1):
        answer = ex.answer_text(lang)
        if "\n" in answer:  # a table, one row a line
            answer = f"\n\n```\n{answer}\n```"
        parts.append(f"## {i} · `{ex.id}`\n\n**{t('ex.sheet.answer', lang)}:** {answer}\n\n"
                     f"**{t('ex.sheet.working', lang)}:**\n\n{ex.solution(lang)}")
    return "\n\n".join(parts) + "\n"
