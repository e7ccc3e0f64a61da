"""The learner's self-assessment, kept in a local file (~/.blockviz/self_assessment.json); nothing is sent."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

from blockviz.i18n import LANGS, t
from blockviz.jsonfile import read_json

LEVELS = ("not_yet", "with_notes", "closed_book")


def blockviz_home() -> Path:
    return Path(os.environ.get("BLOCKVIZ_HOME") or Path.home() / ".blockviz")


def save_self_assessment(lesson: str, ratings: dict[str, str], lang: str = "en", home: Path | None = None) -> Path:
    """Append one self-assessment to ~/.blockviz/self_assessment.json (a local file; nothing is sent)."""
    path = (home or blockviz_home()) / "self_assessment.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    data = load_self_assessment(path.parent)
    data.setdefault("lessons", {}).setdefault(lesson, []).append(
        {"time": time.strftime("%Y-%m-%dT%H:%M:%S"), "lang": lang, "ratings": dict(ratings)})
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    tmp.replace(path)
    return path


def load_self_assessment(home: Path | None = None) -> dict:
    path = (home or blockviz_home()) / "self_assessment.json"
    if not path.exists():
        return {"version": 1, "lessons": {}}
    return read_json(path, dict)



def level_of(value) -> str | None:
    """The level a saved rating names: its key (what the widget saves), or its label in any language
    ("closed book", "闭卷能做": what a hand-written entry may hold); None for unrated. A skill is saved
    under its English text whatever the notebook's language, so rewording a Chinese label (lesson
    12's 解码 and 预填充) leaves what was saved before readable."""
    if value in LEVELS:
        return value
    if isinstance(value, str):
        for lang in LANGS:
            labels = t("lesson.levels", lang).split("|")
            if value.strip() in labels:
                return LEVELS[labels.index(value.strip())]
    return None
