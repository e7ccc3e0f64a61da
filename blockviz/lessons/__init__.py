"""What the lessons (lesson/*.md, built into notebooks/en and notebooks/zh) import: the lesson object and the helpers they share.

    catalog.py          the lessons in course order, their titles
    lesson.py           Lesson: prose with computed numbers, views, questions, source, self-assessment
    tables.py           Markdown tables of engine facts (a step's rows, blocks, probes)
    history.py          run a scenario up to a step; one block's reference count over a run
    spy.py              log the calls of methods, collect what a method returns
    source.py           the lines of a def in the repository, the callers of a method
    self_assessment.py  the learner's local self-assessment file
    figures.py          matplotlib pictures a lesson draws itself
    timing.py           how long a lesson takes, estimated from its source (Lesson.header says how)

The timeline queries (find a step, a request by label, a step's rows) are blockviz.queries, shared
with the views and the exercises; the questions are blockviz.exercises exercises.
"""
from importlib import import_module

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
