"""What the lessons (lesson/*.md, built into notebooks/en and notebooks/zh) import: the lesson object and the helpers they share.

    lesson.py           Lesson: prose with computed numbers, views, questions, source, self-assessment
    tables.py           Markdown tables of engine facts (a step's rows, blocks, probes)
    history.py          run a scenario up to a step; one block's reference count over a run
    spy.py              log the calls of methods, collect what a method returns
    source.py           the lines of a def in the repository, the callers of a method
    self_assessment.py  the learner's local self-assessment file
    figures.py          matplotlib pictures a lesson draws itself
    timing.py           how long a lesson takes, estimated from its source (Lesson.header says how)

The course (the lessons in order, their titles) is blockviz/course.py, which the practice sets read
too. The timeline queries (find a step, a request by label, a step's rows) are blockviz.queries, shared
with the views and the exercises; the questions are blockviz.exercises exercises.
"""
from blockviz.course import LESSONS, REPO_DIR, check_lang
from blockviz.lessons.figures import contiguous_pool_figure, pool_slots_figure, usage_figure
from blockviz.lessons.history import advance_to, ref_history
from blockviz.lessons.lesson import Lesson
from blockviz.lessons.self_assessment import LEVELS, blockviz_home, load_self_assessment, save_self_assessment
from blockviz.lessons.source import callers_of, def_lines, line_of
from blockviz.lessons.spy import capture, compress, record_calls
from blockviz.lessons.tables import (blocks_markdown, outcome_name, probes_markdown, rows_markdown, state_meaning,
                                     state_name)
from blockviz.queries import Row, events_of, find_step, seq_by_label, seq_id_of, step_block_table, step_rows

# Each name, and the module it comes from, imported when first used: importing blockviz.lessons.catalog
# (the practice sets' titles, `blockviz exercise --list`) then loads neither jupytext nor IPython nor the views.
WHERE = {
    "LESSONS": "blockviz.lessons.catalog",
    "REPO_DIR": "blockviz.lessons.catalog",
    "check_lang": "blockviz.lessons.catalog",
    "contiguous_pool_figure": "blockviz.lessons.figures",
    "pool_slots_figure": "blockviz.lessons.figures",
    "usage_figure": "blockviz.lessons.figures",
    "advance_to": "blockviz.lessons.history",
    "ref_history": "blockviz.lessons.history",
    "Lesson": "blockviz.lessons.lesson",
    "LEVELS": "blockviz.lessons.self_assessment",
    "blockviz_home": "blockviz.lessons.self_assessment",
    "load_self_assessment": "blockviz.lessons.self_assessment",
    "save_self_assessment": "blockviz.lessons.self_assessment",
    "callers_of": "blockviz.lessons.source",
    "def_lines": "blockviz.lessons.source",
    "line_of": "blockviz.lessons.source",
    "capture": "blockviz.lessons.spy",
    "compress": "blockviz.lessons.spy",
    "record_calls": "blockviz.lessons.spy",
    "blocks_markdown": "blockviz.lessons.tables",
    "outcome_name": "blockviz.lessons.tables",
    "probes_markdown": "blockviz.lessons.tables",
    "rows_markdown": "blockviz.lessons.tables",
    "state_meaning": "blockviz.lessons.tables",
    "state_name": "blockviz.lessons.tables",
    "Row": "blockviz.queries",
    "events_of": "blockviz.queries",
    "find_step": "blockviz.queries",
    "seq_by_label": "blockviz.queries",
    "seq_id_of": "blockviz.queries",
    "step_block_table": "blockviz.queries",
    "step_rows": "blockviz.queries",
}
__all__ = sorted(WHERE)


def __getattr__(name: str):
    if name not in WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = getattr(import_module(WHERE[name]), name)
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
