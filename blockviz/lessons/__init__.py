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

__all__ = ["LESSONS", "REPO_DIR", "LEVELS", "Lesson", "Row", "advance_to", "blocks_markdown", "blockviz_home",
           "callers_of", "capture", "check_lang", "compress", "contiguous_pool_figure", "def_lines", "events_of", "find_step", "line_of",
           "load_self_assessment", "outcome_name", "pool_slots_figure", "probes_markdown", "record_calls",
           "ref_history", "rows_markdown", "save_self_assessment", "seq_by_label", "seq_id_of", "state_meaning",
           "state_name", "step_block_table", "step_rows", "usage_figure"]
