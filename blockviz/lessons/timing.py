"""How long a lesson takes, estimated from its source in one language: the prose a learner reads
(markdown cells and the text of say()/reveal() calls, bilingual.prose_of) and the code cells left
open, at reading speeds, plus a fixed time for each thing the page asks the learner to do, counted
in its cells. Lesson.header shows the estimate and how it was made."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import jupytext

from blockviz.lessons.bilingual import calls_in, cells_for, prose_of

WORDS_PER_MINUTE = 200    # English prose
HAN_PER_MINUTE = 350      # Chinese characters
CODE_LINES_PER_MINUTE = 20  # code a learner reads (cells not folded away)

# minutes per activity: the learner works each out before looking
MINUTES = {
    "question": 3.0,     # L.exercise / L.practice: compute on paper, check, read the diagnosis
    "whole_run": 15.0,   # L.practice("steps_table"): predict every step of a run, a row each, then check
    "prediction": 2.0,   # L.reveal: write the answer down, then open it
    "experiment": 5.0,   # a "change a variable" section: predict, run, try other values
    "live_view": 2.0,    # L.show: step through it with the player
    "picture": 0.5,      # L.view: a view drawn at one step
    "source": 1.0,       # L.source: read the engine's lines it shows
    "recall": 0.5,       # a closed-book <details> question: answer aloud, then open
    "self_assessment": 1.0,
    "retrieval": 6.0,    # L.retrieval: two or three questions from earlier lessons
}
CALLS = {"exercise": "question", "practice": "question", "reveal": "prediction", "show": "live_view",
         "view": "picture", "source": "source", "self_assessment": "self_assessment",
         "retrieval": "retrieval"}
EXPERIMENT = {"en": "Change a variable", "zh": "改变变量"}  # the page format's heading (tests/lessons/test_prose.py)


@dataclass(frozen=True)
class Estimate:
    words: int                 # English words read
    han: int                   # Chinese characters read
    code_lines: int            # lines of code in cells shown open
    counts: dict[str, int]     # activity -> how many

    @property
    def reading(self) -> int:
        return max(1, round(self.words / WORDS_PER_MINUTE + self.han / HAN_PER_MINUTE
                            + self.code_lines / CODE_LINES_PER_MINUTE))

    @property
    def doing(self) -> int:
        return round(sum(MINUTES[kind] * n for kind, n in self.counts.items()))

    @property
    def total(self) -> int:
        return self.reading + self.doing


def estimate(source: Path, lang: str) -> Estimate:
    text = "\n".join(prose_of(source, lang))
    counts = {kind: 0 for kind in MINUTES}
    code_lines = 0
    for cell in cells_for(jupytext.read(source, fmt="md:myst"), lang):
        if cell.cell_type == "markdown":
            counts["recall"] += cell.source.count("<details>")
            counts["experiment"] += len(re.findall(rf"(?m)^#+ {EXPERIMENT[lang]}", cell.source))
            continue
        if not cell.metadata.get("jupyter", {}).get("source_hidden"):
            code_lines += sum(1 for line in cell.source.splitlines() if line.strip())
        for name, call in calls_in(cell.source):
            if name == "practice" and call.args and getattr(call.args[0], "value", None) == "steps_table":
                counts["whole_run"] += 1
            elif name in CALLS:
                counts[CALLS[name]] += 1
    return Estimate(len(re.findall(r"[A-Za-z]+", text)), len(re.findall(r"[\u4e00-\u9fff]", text)), code_lines,
                    {kind: n for kind, n in counts.items() if n})


def how_estimated(guess: Estimate, lang: str) -> str:
    """The estimate's working, in `lang`: what was counted and the minutes given to each."""
    from blockviz.i18n import t
    read = t("lesson.estimate.reading", lang, words=guess.words, han=guess.han, code=guess.code_lines,
             wpm=WORDS_PER_MINUTE, hpm=HAN_PER_MINUTE, lpm=CODE_LINES_PER_MINUTE, minutes=guess.reading)
    doing = [t("lesson.estimate.item", lang, n=n, what=t(f"lesson.activity.{kind}", lang), each=f"{MINUTES[kind]:g}")
             for kind, n in guess.counts.items()]
    items = t("lesson.list_sep", lang).join(doing) + t("lesson.estimate.end", lang)
    return f"{read}\n\n{t('lesson.estimate.doing', lang, minutes=guess.doing, items=items)}"
