"""The lesson object: `L = Lesson("01_token_to_slot", LANG)` in a lesson's first code cell.

A sentence with numbers is a code cell that fills an f-string from the engine and shows it in the
lesson's language (`L.say(en=..., zh=...)`). Pictures are the team's views (blockviz/views):
`L.view` draws one at a given step, `L.show` puts live widgets under a player. Every question is a
blockviz.exercises exercise with its one widget (`L.exercise` for the lesson's own questions,
`L.practice` for generated ones); no answer shows until the learner asks for it.
"""
from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Callable, Iterable

from IPython.display import HTML, Markdown, display

from blockviz.i18n import t
from blockviz.course import LESSONS, REPO_DIR, check_lang
from blockviz.lessons.self_assessment import LEVELS, save_self_assessment
from blockviz.lessons.source import def_lines
from blockviz.lessons.tables import Row, blocks_markdown, probes_markdown, rows_markdown
from blockviz.lessons.timing import Estimate, estimate, how_estimated
from blockviz.markup import esc
from blockviz.queries import labels_of, seq_id_of
from blockviz.recording.snapshot import Snapshot
from blockviz.views.render_view import render_view


class LessonWarning(UserWarning):
    """A lesson's own question is built wrong (the lesson tests fail on it)."""


class Lesson:
    """`L = Lesson("01_token_to_slot", LANG)` in a lesson's first code cell."""

    def __init__(self, name: str, lang: str = "en"):
        if name not in LESSONS:
            raise ValueError(f"unknown lesson {name!r}; known: {', '.join(LESSONS)}")
        self.name = name
        self.lang = check_lang(lang)

    # prose with computed numbers
    def text(self, en: str | None = None, zh: str | None = None) -> str:
        """This lesson's language of the two (a notebook built from a bilingual source passes only
        its own: scripts/build_notebooks.py drops the other)."""
        text = en if self.lang == "en" else zh
        if text is None:
            raise TypeError(f"no {self.lang} text given")
        return text

    def say(self, en: str | None = None, zh: str | None = None):
        display(Markdown(self.text(en, zh)))

    def reveal(self, en: str | None = None, zh: str | None = None):
        """A computed answer folded away: Run All shows only its summary line, and the learner opens it
        after answering the question before it."""
        display(Markdown(f"<details><summary>{esc(t('lesson.reveal', self.lang))}</summary>\n\n"
                         f"{self.text(en, zh)}\n\n</details>"))

    def title(self, name: str | None = None) -> str:
        name = name or self.name
        return f"{name.split('_')[0]} · {LESSONS[name][self.lang]}"  # "03", "03b" (a lesson split in parts), "b1"

    def link(self, name: str) -> str:
        return f"[{self.title(name)}]({name}.ipynb)"

    def source_file(self) -> Path:
        return REPO_DIR / "lesson" / f"{self.name}.md"

    def time_estimate(self) -> Estimate | None:
        """How long this lesson takes in its language (blockviz/lessons/timing.py); None without its source."""
        source = self.source_file()
        return estimate(source, self.lang) if source.exists() else None

    def practice_set(self) -> Path | None:
        """The lesson's practice set in exercises/ (blockviz.exercises), if it has one."""
        if not self.name[:2].isdigit():  # the build-it-yourself track (b1_...) has none
            return None
        # a lesson split in parts has its own set when one exists ("10b" -> lesson10b), else its number's
        for number in (self.name.split("_")[0].lstrip("0") or "0", int(self.name[:2])):
            path = REPO_DIR / "exercises" / self.lang / f"lesson{number}.md"
            if path.exists():
                return path
        return None

    def header(self, practice: tuple[int, int] | None = None, prerequisites: Iterable[str] = ()):
        """Time for this page (reading plus doing, estimated from its source and said how), the
        optional practice set afterwards (`practice`: its minutes, the author's estimate), prerequisites."""
        lang = self.lang
        parts = []
        guess = self.time_estimate()
        if guess is not None:
            parts.append(t("lesson.time", lang, total=guess.total, reading=guess.reading, doing=guess.doing))
        if practice is not None:
            more = t("lesson.practice", lang, low=practice[0], high=practice[1])
            path = self.practice_set()
            if path is not None:
                more += t("lesson.practice_set", lang,
                          href=os.path.relpath(path, REPO_DIR / "notebooks" / lang).replace(os.sep, "/"))
            parts.append(more)
        lessons = t("lesson.list_sep", lang).join(self.link(p) for p in prerequisites) or t("lesson.none", lang)
        parts.append(t("lesson.prereq", lang, lessons=lessons))
        text = " · ".join(parts)
        if guess is not None:
            text += (f"\n\n<details><summary>{esc(t('lesson.estimate', lang))}</summary>\n\n"
                     f"{how_estimated(guess, lang)}\n\n</details>")
        display(Markdown(text))

    # views -------------------------------------------------------------------------------
    def view(self, timeline, view: str = "pool", step: int | None = None, label: str | None = None):
        """A picture of one view ("pool", "mapping", "chain", "events", "kv") at a step (default: the
        cursor). It stays at that step; `show` gives the live widgets."""
        step = timeline.cursor if step is None else step
        seq_id = seq_id_of(timeline, label) if label else None
        display(HTML(render_view(timeline, view, step, lang=self.lang, seq_id=seq_id)))

    def narrate(self, timeline, step: int | None = None, kinds: Iterable[type] = ()) -> list[str]:
        from blockviz.views.render_events import narrate
        step = timeline.cursor if step is None else step
        events = [e for e in timeline.events(step) if not kinds or isinstance(e, tuple(kinds))]
        return [narrate(e, labels_of(timeline), self.lang, timeline.decode) for e in events]

    def events(self, timeline, step: int | None = None, kinds: Iterable[type] = ()):
        """The events of one step, one narrated line each."""
        lines = self.narrate(timeline, step, kinds)
        display(Markdown("\n".join(f"- {esc(line)}" for line in lines) or "-"))

    def blocks(self, snapshot: Snapshot, blocks: Iterable[int] | None = None, decode: Callable | None = None):
        display(Markdown(blocks_markdown(snapshot, self.lang, blocks, decode)))

    def probes(self, timeline, label: str, step: int):
        display(Markdown(probes_markdown(timeline, label, step, self.lang)))

    def rows(self, rows: list[Row], columns: Iterable[str] = ("label", "row", "position", "logical", "offset",
                                                              "physical", "slot")):
        display(Markdown(rows_markdown(rows, self.lang, columns)))

    def show(self, timeline, *views: str, label: str | None = None, step: int | None = None):
        """Live widgets (blockviz.views.show) at `step` (default: the timeline's cursor), kept there
        while later cells run the engine on, so the picture stays beside its text: the dashboard
        when no view is named, else a player driving the named views ("pool", "mapping", "chain",
        "kv", "events", ...). `label` picks the request of the mapping and chain views."""
        import ipywidgets as w
        from blockviz.views import show
        at = {"step": step, "follow": False, "lang": self.lang}
        if not views:
            box = show(timeline, "dashboard", **at)
            opened_at = box.player.step
        else:
            seq_id = seq_id_of(timeline, label) if label else None
            player = show(timeline, "player", **at)
            widgets = []
            for view in views:
                options = {"seq_id": seq_id} if view in ("mapping", "chain") else {}
                widgets.append(show(timeline, view, **(at | {"step": player.step}), **options))
            player.drive(*widgets)
            box, opened_at = w.VBox([player, *widgets]), player.step
        # the step the text beside it describes, in the page: the browser test checks that Run All
        # leaves every view there (tests/browser/test_run_all.py)
        box.add_class(f"bv-opened-at-{opened_at}")
        return box

    # exercises ---------------------------------------------------------------------------
    def exercise(self, question_en: str, question_zh: str, expected, explain_en: str, explain_zh: str, hint: str,
                 mistakes: Iterable[tuple] = ()):
        """A fixed question whose answer (`expected`) the engine computed, with the one exercise widget:
        Check diagnoses the `mistakes` it names ((wrong answer, why_en, why_zh), each computed by the
        engine), then Hint, then Show solution (the answer and `explain`), only when asked. `hint` names
        the question's own hint in blockviz/i18n/lesson_hints.py ("02.can_allocate_c" is the string
        "hint.02.can_allocate_c"): what to look at depends on the question, not on the run, so it lives
        in the table; the explanation cites the run's numbers, so it is written beside them."""
        from blockviz.exercises.question import question
        hint_en, hint_zh = (t(f"hint.{hint}", lang) for lang in ("en", "zh"))
        mistakes = tuple(mistakes)
        ex = question(question_en, question_zh, expected, explain_en, explain_zh, hint_en, hint_zh,
                      mistakes, lang=self.lang)
        dropped = len(mistakes) - len(ex.params["mistakes"])
        if dropped:  # the engine computed a "wrong" answer equal to the right one: its diagnosis can never show
            warnings.warn(f"{self.name}: {dropped} named mistake(s) of the question {question_en[:60]!r} "
                          "equal its answer", LessonWarning, stacklevel=2)
        display(ex.widget())
        return ex

    def practice(self, kind: str, seed: int | None = None, **params):
        """More practice from blockviz.exercises: a generated exercise (answer computed by the engine)
        with its widget (answer box, Check, Hint, Show solution)."""
        from blockviz import exercises
        ex = exercises.make(kind, seed=seed, lang=self.lang, **params)
        display(ex.widget())
        return ex

    def retrieval(self) -> None:
        """The lesson's opening: two or three exercises from earlier lessons (retrieval.py), each with the
        lesson it comes from; checked like every exercise, recorded nowhere."""
        from blockviz import exercises
        from blockviz.exercises.kinds import KINDS
        from blockviz.lessons.retrieval import retrieval_items
        items = retrieval_items(self.name)
        sources = sorted({self.numbered(KINDS[kind].lesson) for kind, _ in items})
        display(Markdown(f"### {t('lesson.retrieval.title', self.lang)}\n\n"
                         + t("lesson.retrieval.intro", self.lang, n=len(items),
                             lessons=t("lesson.list_sep", self.lang).join(self.link(name) for name in sources))))
        for kind, seed in items:
            display(exercises.make(kind, seed=seed, lang=self.lang).widget())
            display(Markdown(t("lesson.retrieval.from", self.lang, lesson=self.link(self.numbered(KINDS[kind].lesson)))))

    @staticmethod
    def numbered(number: int) -> str:
        """The (first) lesson of a number: 3 -> "03_prefix_identity"."""
        return next(name for name in LESSONS if name[:2] == f"{number:02d}")

    def review_plan(self, review: list[tuple[str, int]], ratings: dict[int, str], home: Path | None = None):
        """What lesson 12 read from the saved self-assessment and how it weighted its review: the lessons, the
        rating read for each and how many questions it gets; or that nothing is saved and it reviews evenly."""
        from blockviz.exercises.kinds import KINDS
        from blockviz.lessons.self_assessment import blockviz_home
        path = (home or blockviz_home()) / "self_assessment.json"
        if not ratings:
            display(Markdown(t("lesson.review.none", self.lang, path=f"`{esc(str(path))}`", total=len(review))))
            return
        level_names = dict(zip(LEVELS, t("lesson.levels", self.lang).split("|")))
        counts: dict[int, int] = {}
        for kind, _ in review:
            counts[KINDS[kind].lesson] = counts.get(KINDS[kind].lesson, 0) + 1
        rows = [f"| {self.link(self.numbered(n))} | "
                f"{level_names[ratings[n]] if n in ratings else t('lesson.review.unrated', self.lang)} | {count} |"
                for n, count in counts.items()]
        display(Markdown(t("lesson.review.weighted", self.lang, path=f"`{esc(str(path))}`", total=len(review))
                         + "\n\n" + t("lesson.review.header", self.lang) + "\n|---|---|---|\n" + "\n".join(rows)))

    # the source ----------------------------------------------------------------------------
    def source(self, qualname: str, path: str = "blockviz/engine/block_manager.py",
               highlight: str | Iterable[str] = (), show: bool = True):
        """A link to `def qualname` in the repository (line numbers found in the file, never typed)
        and the lines themselves, those containing any `highlight` text marked."""
        first, last = def_lines(path, qualname)
        marks = (highlight,) if isinstance(highlight, str) else tuple(highlight)
        notebook_dir = REPO_DIR / "notebooks" / self.lang
        href = os.path.relpath(REPO_DIR / path, notebook_dir).replace(os.sep, "/") + f"#L{first}"
        head = (f'<a href="{href}"><code>{path}#L{first}</code></a> · <code>{qualname}</code> · '
                f'{t("lesson.source_lines", self.lang, first=first, last=last)}')
        if not show:
            display(HTML(head))
            return
        lines = (REPO_DIR / path).read_text(encoding="utf-8").splitlines()[first - 1:last]
        body = []
        for n, line in enumerate(lines, start=first):
            code = esc(line)
            if any(m in line for m in marks):
                code = f'<mark style="background:#F0E442;color:#000">{code}</mark>'
            body.append(f'<span style="opacity:.6">{n:>4}</span>  {code}')
        display(HTML(f'<div>{head}</div><pre style="font-size:12px;line-height:1.35">' + "\n".join(body) + "</pre>"))

    # self-assessment --------------------------------------------------------------------------
    def self_assessment(self, skills: list[tuple[str, str]]):
        """One row of buttons per skill; Save appends the ratings to ~/.blockviz/self_assessment.json
        (or $BLOCKVIZ_HOME). Nothing is written until Save is pressed, and nothing is sent anywhere."""
        import ipywidgets as w
        levels = list(zip(t("lesson.levels", self.lang).split("|"), LEVELS))  # (label, key): the file keeps the key
        names = [self.text(en, zh) for en, zh in skills]
        rows, buttons = [], []
        for name in names:
            toggle = w.ToggleButtons(options=levels, value=None, style={"button_width": "9em"})
            buttons.append(toggle)
            rows.append(w.VBox([w.HTML(f"<b>{esc(name)}</b>"), toggle]))
        # as wide as its words: a Button's default width (148 px) cuts "Save on this computer" off
        save = w.Button(description=t("lesson.save", self.lang), icon="save", layout=w.Layout(width="auto"))
        status = w.HTML()

        def on_save(_):
            ratings = {en: (b.value or "") for (en, _zh), b in zip(skills, buttons)}
            path = save_self_assessment(self.name, ratings, self.lang)
            status.value = esc(t("lesson.saved", self.lang, path=path))
        save.on_click(on_save)
        box = w.VBox(rows + [w.HBox([save, status])])
        box.save_button, box.toggles = save, buttons  # for tests and for scripting
        return box

