"""Small helpers the lessons (lesson/en, lesson/zh) share.

The lessons state no number that the engine did not compute: a sentence with numbers is a code
cell that fills an f-string from the engine and shows it in the lesson's language
(`Lesson.say(en=..., zh=...)`), so the English and Chinese notebooks keep identical code.

Everything here reads the engine; nothing changes a result. Pictures are the team's views
(blockviz/views): `Lesson.view` draws one at a given step, `Lesson.show` puts live widgets under a
player, at the step the lesson is talking about.
"""
from __future__ import annotations

import ast
import json
import os
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from IPython.display import HTML, Markdown, display

from blockviz.model_inputs import model_inputs, prepare_inputs  # noqa: F401  lessons import model_inputs here
from blockviz.i18n import LANGS, t as tr
from blockviz.markup import esc
from blockviz.trace.events import BlockReleased, Event
from blockviz.trace.snapshot import Snapshot, SeqView
from blockviz.views.render_view import render_view
from blockviz.views.theme import matplotlib_fonts

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_DIR = PACKAGE_DIR.parent

# name -> title; the order is the course order
LESSONS: dict[str, dict[str, str]] = {
    "00_start_here": {"en": "Start here", "zh": "从这里开始"},
    "01_token_to_slot": {"en": "Logical token → physical slot", "zh": "从逻辑 token 到物理槽位"},
    "02_block_lifecycle": {"en": "The block lifecycle", "zh": "块的生命周期"},
    "03_prefix_identity": {"en": "Prefix identity", "zh": "前缀的身份"},
    "04_decode": {"en": "Decode", "zh": "解码阶段"},
    "05_under_pressure": {"en": "Under pressure", "zh": "显存紧张时"},
    "06_live_generation": {"en": "Live generation: a real model fills the pool", "zh": "实时生成：真实模型写满 KV 池"},
    "07_paged_attention": {"en": "Paged attention", "zh": "分页注意力"},
    "08_beyond_nano_vllm": {"en": "Beyond nano-vllm", "zh": "nano-vllm 之外"},
    "09_classroom_demo": {"en": "The classroom demo", "zh": "课堂演示"},
}

def check_lang(lang: str) -> str:
    if lang not in LANGS:
        raise ValueError(f"LANG must be one of {LANGS}, got {lang!r}")
    return lang


# --- engine facts ------------------------------------------------------------------------

def seq_by_label(snapshot: Snapshot, label: str) -> SeqView:
    for seq in snapshot.seqs.values():
        if seq.label == label:
            return seq
    raise KeyError(f"no request labelled {label!r} at step {snapshot.step}")


def seq_id_of(timeline, label: str) -> int:
    return seq_by_label(timeline.frames[-1].snapshot, label).seq_id


def step_block_table(snapshot: Snapshot, events: Iterable[Event], seq_id: int) -> tuple[int, ...]:
    """The block table a request used during this step. A request that finished (or was
    preempted) in the step has an empty table afterwards; deallocate released it in reverse."""
    seq = snapshot.seqs[seq_id]
    if seq.block_table:
        return seq.block_table
    released = [e.block_id for e in events if isinstance(e, BlockReleased) and e.seq_id == seq_id]
    return tuple(reversed(released))


@dataclass(frozen=True)
class Row:
    """One computed token of a step: its packed row, RoPE position, logical block, offset, physical block, slot."""
    label: str
    row: int
    position: int
    token_id: int
    logical: int
    offset: int
    physical: int
    slot: int


def step_rows(timeline, step: int) -> list[Row]:
    """One row per token a recorded step computed, as the model runner packed them: the Sequences of
    the step are rebuilt from the snapshot and passed to ModelRunner.prepare_prefill / prepare_decode."""
    from blockviz.engine.sequence import Sequence
    frame = timeline.frame(step)
    snap = frame.snapshot
    B = snap.block_size
    seqs, owners = [], []  # owners: (label, block table) of each packed row
    for seq_id, (start, count) in snap.scheduled.items():
        view = snap.seqs[seq_id]
        end = start + count if snap.is_prefill else start + 1  # a decode step computes position start
        seq = Sequence(list(view.token_ids[:end]), block_size=B)
        seq.block_table = list(step_block_table(snap, frame.events, seq_id))
        seq.num_cached_tokens, seq.num_scheduled_tokens = start, count
        seqs.append(seq)
        owners += [(view.label, seq.block_table)] * count
    if not seqs:
        return []
    inputs = prepare_inputs(seqs, snap.is_prefill, B)
    return [Row(label, row, t, token_id, t // B, t % B, table[t // B], slot)
            for row, ((label, table), t, token_id, slot) in enumerate(zip(owners, inputs["positions"],
                                                                          inputs["input_ids"], inputs["slot_mapping"]))]


def rows_markdown(rows: list[Row], lang: str, columns: Iterable[str] = ("label", "row", "position", "logical",
                                                                       "offset", "physical", "slot")) -> str:
    columns = tuple(columns)
    head = "| " + " | ".join(tr(f"lesson.col.{c}", lang) for c in columns) + " |"
    rule = "|" + "---|" * len(columns)
    body = ["| " + " | ".join(str(getattr(r, c)) for c in columns) + " |" for r in rows]
    return "\n".join([head, rule, *body])


def state_name(state, lang: str) -> str:
    return tr(f"state.{state.value}", lang)


def state_meaning(state, lang: str) -> str:
    return tr(f"state.{state.value}.meaning", lang)


def blocks_markdown(snapshot: Snapshot, lang: str, blocks: Iterable[int] | None = None,
                    decode: Callable | None = None) -> str:
    """One row per block: the facts the state is derived from, then the state."""
    from blockviz.states import classify_block
    from blockviz.views.format import short_hash
    cols = ["block", "in_free", "hash", "map", "ref", "state", "holders", "tokens"]
    lines = ["| " + " | ".join(tr(f"lesson.col.{c}", lang) for c in cols) + " |", "|" + "---|" * len(cols)]
    for i in (range(snapshot.num_blocks) if blocks is None else blocks):
        b = snapshot.blocks[i]
        mapped = snapshot.hash_to_block_id.get(b.hash) if b.hash != -1 else None
        holders = [s.label for s in snapshot.seqs.values() if i in s.block_table]
        text = (decode(b.token_ids) if decode else " ".join(map(str, b.token_ids))) if b.token_ids else ""
        state = classify_block(snapshot, i)
        lines.append("| " + " | ".join([
            f"#{i}", tr("lesson.no" if i in snapshot.used_block_ids else "lesson.yes", lang), short_hash(b.hash),
            "-" if mapped is None else f"#{mapped}", str(b.ref_count), f"**{state_name(state, lang)}**",
            ", ".join(holders) or "-", f"`{text}`" if text else ""]) + " |")
    return "\n".join(lines)


def outcome_name(outcome: str, lang: str) -> str:
    return tr(f"outcome.{outcome}", lang)


def probes_markdown(timeline, label: str, step: int, lang: str) -> str:
    """The CacheProbe events of one request in one step: what can_allocate found for each logical block."""
    from blockviz.trace.events import CacheProbe
    from blockviz.views.format import short_hash
    seq = seq_by_label(timeline.snapshot(step), label)
    B = timeline.snapshot(step).block_size
    probes = [e for e in timeline.events(step) if isinstance(e, CacheProbe) and e.seq_id == seq.seq_id]
    before = timeline.snapshot(step - 1).seqs.get(seq.seq_id) if step > 0 else None
    probed_tokens = seq.token_ids[:before.num_tokens if before else seq.num_prompt_tokens]  # as can_allocate saw them
    cols = ["index", "tokens", "hash", "outcome", "found"]
    lines = ["| " + " | ".join(tr(f"lesson.col.{c}", lang) for c in cols) + " |", "|" + "---|" * len(cols)]
    for p in probes:
        tokens = probed_tokens[p.index * B:(p.index + 1) * B]
        text = timeline.decode(tokens).replace("|", "\\|")
        lines.append(f"| {p.index} | `{text}` | {short_hash(p.hash)} | **{outcome_name(p.outcome, lang)}** | "
                     f"{'#' + str(p.block_id) if p.block_id >= 0 else '-'} |")
    return "\n".join(lines)


def ref_history(timeline, block_id: int) -> list[tuple[int, int, str]]:
    """(step, ref_count, state) of one block after every recorded step."""
    from blockviz.states import classify_block
    return [(f.step, f.snapshot.blocks[block_id].ref_count, classify_block(f.snapshot, block_id).value)
            for f in timeline.frames]


def advance_to(scenario, sim, step: int) -> list:
    """Run a scenario's requests on `sim` until `step` engine steps have run (requests arriving at
    `step` are added, not yet scheduled). Returns the sequences added."""
    added = []
    pending = sorted(scenario.requests, key=lambda r: r.at_step)
    while True:
        while pending and pending[0].at_step <= sim.num_steps:
            r = pending.pop(0)
            added.append(sim.add(r.prompt, max_tokens=r.max_tokens, ignore_eos=r.ignore_eos, label=r.label,
                                 script=r.script))
        if sim.num_steps >= step or sim.is_finished():
            return added
        sim.step()


def callers_of(path: str | Path, method: str) -> list[str]:
    """Qualified names of the functions in a file that call `.method(`."""
    tree = ast.parse((REPO_DIR / path).read_text(encoding="utf-8"))
    found = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                calls = [n for n in ast.walk(child) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                         and n.func.attr == method]
                if calls:
                    found.append(prefix + child.name)
    visit(tree, "")
    return found


def find_step(timeline, predicate: Callable[[Any], bool]) -> int:
    """The first recorded step whose frame satisfies predicate(frame)."""
    for frame in timeline.frames:
        if predicate(frame):
            return frame.step
    raise LookupError("no step matches")


def events_of(timeline, kind: type, step: int | None = None) -> list:
    frames = timeline.frames if step is None else [timeline.frame(step)]
    return [e for f in frames for e in f.events if isinstance(e, kind)]


@contextmanager
def record_calls(obj, names: Iterable[str], log: list | None = None):
    """Log every call of these methods of `obj` (an instance) in order, without changing what they do."""
    log = [] if log is None else log
    originals = {}
    for name in names:
        method = getattr(obj, name)
        originals[name] = method

        def wrapper(*args, _name=name, _method=method, **kwargs):
            log.append(_name)
            return _method(*args, **kwargs)
        setattr(obj, name, wrapper)
    try:
        yield log
    finally:
        for name in originals:
            delattr(obj, name)  # the class's method shows through again


@contextmanager
def capture(obj, name: str):
    """While inside, collect what every call of `obj.name` (an instance's method) returns; the method runs unchanged."""
    results = []
    method = getattr(obj, name)

    def wrapper(*args, **kwargs):
        result = method(*args, **kwargs)
        results.append(result)
        return result
    setattr(obj, name, wrapper)
    try:
        yield results
    finally:
        delattr(obj, name)  # the class's method shows through again


def compress(names: list[str]) -> list[tuple[str, int]]:
    """[a, a, b, a] -> [(a, 2), (b, 1), (a, 1)]"""
    out: list[tuple[str, int]] = []
    for name in names:
        if out and out[-1][0] == name:
            out[-1] = (name, out[-1][1] + 1)
        else:
            out.append((name, 1))
    return out


# --- source code -------------------------------------------------------------------------

def def_lines(path: str | Path, qualname: str) -> tuple[int, int]:
    """(first, last) line of `def qualname` ("Class.method" or "function") in a file of the repository."""
    file = REPO_DIR / path
    tree = ast.parse(file.read_text(encoding="utf-8"))
    node: Any = tree
    for part in qualname.split("."):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) and child.name == part:
                node = child
                break
        else:
            raise LookupError(f"no {qualname} in {path}")
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    return first, node.end_lineno


def line_of(path: str | Path, qualname: str, contains: str) -> int:
    """The first line inside `def qualname` containing the text `contains`."""
    first, last = def_lines(path, qualname)
    lines = (REPO_DIR / path).read_text(encoding="utf-8").splitlines()
    for n in range(first, last + 1):
        if contains in lines[n - 1]:
            return n
    raise LookupError(f"{contains!r} is not in {qualname} ({path})")


# --- self-assessment (local only) ----------------------------------------------------------

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
    return json.loads(path.read_text(encoding="utf-8"))


# --- answers -------------------------------------------------------------------------------

def parse_answer(text: str):
    """'10' -> 10; '23, 8, 9, 10' or '[23, 8, 9, 10]' -> [23, 8, 9, 10]; '{5: 2}' -> {5: 2}; words stay text."""
    text = text.strip()
    if not text:
        raise ValueError("empty")
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        if re.fullmatch(r"[-\d\s,;]+", text):
            return [int(x) for x in re.split(r"[\s,;]+", text) if x]
        return text.lower()
    return normalize(value)


def normalize(value):
    if isinstance(value, (tuple, list, range)):
        return [normalize(v) for v in value]
    if isinstance(value, dict):
        return {normalize(k): normalize(v) for k, v in value.items()}
    if isinstance(value, str):
        return value.strip().lower()
    if isinstance(value, bool):
        return value
    if hasattr(value, "__index__"):
        return int(value)
    return value


LEVELS = ("not_yet", "with_notes", "closed_book")
YES_NO = {"yes": "yes", "y": "yes", "true": "yes", "是": "yes", "能": "yes", "可以": "yes", "对": "yes",
          "no": "no", "n": "no", "false": "no", "否": "no", "不": "no", "不能": "no", "不可以": "no", "错": "no"}


class Exercise:
    """A 'compute first, then check' question whose answer the engine computed."""

    def __init__(self, lesson: "Lesson", question_en: str, question_zh: str, expected,
                 explain_en: str = "", explain_zh: str = ""):
        self.lesson = lesson
        self.question = lesson.text(question_en, question_zh)
        self.expected = normalize(expected)
        self.explain = lesson.text(explain_en, explain_zh)

    def feedback(self, answer) -> tuple[bool | None, str]:
        lang = self.lesson.lang
        if answer is None or (isinstance(answer, str) and not answer.strip()):
            return None, tr("lesson.empty", lang)
        try:
            value = parse_answer(answer) if isinstance(answer, str) else normalize(answer)
        except ValueError as error:
            return None, tr("lesson.unreadable", lang, error=error)
        if isinstance(self.expected, str) and self.expected in YES_NO and isinstance(value, bool):
            value = "true" if value else "false"
        if isinstance(self.expected, str) and self.expected in YES_NO and isinstance(value, str):
            value = YES_NO.get(value, value) if self.expected in ("yes", "no") else \
                {"yes": "true", "no": "false"}.get(YES_NO.get(value, value), value)
        if value == self.expected:
            return True, tr("lesson.right", lang) + (f" {self.explain}" if self.explain else "")
        detail = f"{tr('lesson.engine_says', lang)}: `{self.expected}`" + (f". {self.explain}" if self.explain else "")
        return False, (tr("lesson.wrong", lang) + f"<details><summary>…</summary>\n\n{detail}\n\n</details>")

    def check(self, answer):
        ok, message = self.feedback(answer)
        display(Markdown(message))
        return ok

    def widget(self):
        import ipywidgets as w
        box = w.Text(placeholder=tr("lesson.your_answer", self.lesson.lang), layout=w.Layout(width="24em"))
        button = w.Button(description=tr("lesson.check", self.lesson.lang))
        out = w.HTML()

        def on_click(_):
            ok, message = self.feedback(box.value)
            message = re.sub(r"`([^`]*)`", r"<code>\1</code>", message)
            colour = {True: "#009E73", False: "#D55E00", None: "inherit"}[ok]
            correct = {True: "true", False: "false", None: ""}[ok]
            out.value = (f'<div class="bv-feedback" data-correct="{correct}" style="color:{colour}">'
                         f'{message.replace(chr(10), " ")}</div>')
        button.on_click(on_click)
        return w.VBox([w.HBox([box, button]), out]).add_class("bv-exercise")


# --- the lesson object -------------------------------------------------------------------------

class Lesson:
    """`L = Lesson("01_token_to_slot", LANG)` in a lesson's first code cell."""

    def __init__(self, name: str, lang: str = "en"):
        if name not in LESSONS:
            raise ValueError(f"unknown lesson {name!r}; known: {', '.join(LESSONS)}")
        self.name = name
        self.lang = check_lang(lang)

    # prose with computed numbers
    def text(self, en: str, zh: str) -> str:
        return en if self.lang == "en" else zh

    def say(self, en: str, zh: str):
        display(Markdown(self.text(en, zh)))

    def title(self, name: str | None = None) -> str:
        name = name or self.name
        return f"{name[:2]} · {LESSONS[name][self.lang]}"

    def link(self, name: str) -> str:
        return f"[{self.title(name)}]({name}.ipynb)"

    def source_file(self) -> Path:
        return REPO_DIR / "lesson" / self.lang / f"{self.name}.md"

    def reading_minutes(self) -> int | None:
        """From the prose of this lesson's source (code cells left out): 200 English words or
        350 Chinese characters a minute."""
        try:
            text = self.source_file().read_text(encoding="utf-8")
        except OSError:
            return None
        text = re.sub(r"```\{code-cell\}.*?```", "", text, flags=re.S)
        words = len(re.findall(r"[A-Za-z]+", text))
        han = len(re.findall(r"[\u4e00-\u9fff]", text))
        return max(1, round(words / 200 + han / 350))

    def header(self, practice: tuple[int, int], prerequisites: Iterable[str] = ()):
        lang = self.lang
        minutes = self.reading_minutes()
        parts = []
        if minutes is not None:
            parts.append(f"**{tr('lesson.reading', lang)}** ≈ {minutes} {tr('lesson.minutes', lang)}")
        parts.append(f"**{tr('lesson.practice', lang)}** {practice[0]}–{practice[1]} {tr('lesson.minutes', lang)}")
        prereq = ", ".join(self.link(p) for p in prerequisites) or tr("lesson.none", lang)
        parts.append(f"**{tr('lesson.prereq', lang)}**: {prereq}")
        display(Markdown(" · ".join(parts)))

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
        labels = {seq_id: seq.label for seq_id, seq in timeline.frames[-1].snapshot.seqs.items()}
        return [narrate(e, labels, self.lang, timeline.decode) for e in events]

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
            return show(timeline, "dashboard", **at)
        seq_id = seq_id_of(timeline, label) if label else None
        player = show(timeline, "player", **at)
        widgets = []
        for view in views:
            options = {"seq_id": seq_id} if view in ("mapping", "chain") else {}
            widgets.append(show(timeline, view, **(at | {"step": player.step}), **options))
        player.drive(*widgets)
        return w.VBox([player, *widgets])

    # exercises ---------------------------------------------------------------------------
    def exercise(self, question_en: str, question_zh: str, expected, explain_en: str = "", explain_zh: str = ""):
        """Show a question and an answer box; the answer was computed by the engine."""
        ex = Exercise(self, question_en, question_zh, expected, explain_en, explain_zh)
        display(Markdown(ex.question))
        display(ex.widget())
        return ex

    def practice(self, kind: str, seed: int | None = None, **params):
        """More practice from blockviz.exercises: a generated exercise (answer computed by the engine)
        with its widget (answer box, Check, Hint, Show solution)."""
        from blockviz import exercises
        ex = exercises.make(kind, seed=seed, lang=self.lang, **params)
        display(ex.widget())
        return ex

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
                f'{tr("lesson.source_lines", self.lang, first=first, last=last)}')
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
        levels = list(zip(tr("lesson.levels", self.lang).split("|"), LEVELS))  # (label, key): the file keeps the key
        names = [self.text(en, zh) for en, zh in skills]
        rows, buttons = [], []
        for name in names:
            toggle = w.ToggleButtons(options=levels, value=None, style={"button_width": "9em"})
            buttons.append(toggle)
            rows.append(w.VBox([w.HTML(f"<b>{esc(name)}</b>"), toggle]))
        save = w.Button(description=tr("lesson.save", self.lang), icon="save")
        status = w.HTML()

        def on_save(_):
            ratings = {en: (b.value or "") for (en, _zh), b in zip(skills, buttons)}
            path = save_self_assessment(self.name, ratings, self.lang)
            status.value = esc(tr("lesson.saved", self.lang, path=path))
        save.on_click(on_save)
        box = w.VBox(rows + [w.HBox([save, status])])
        box.save_button, box.toggles = save, buttons  # for tests and for scripting
        return box


def pool_slots_figure(num_blocks: int, block_size: int, placed: dict[int, str], title: str = "",
                      highlight: Iterable[int] = (), crossed: Iterable[int] = (), lang: str = "en"):
    """The physical pool as a grid (a row per block, a column per offset) with labels in some slots;
    `highlight` slots orange, `crossed` slots struck through (a wrong answer)."""
    from matplotlib import rc_context
    with rc_context({"font.family": matplotlib_fonts()}):  # the CJK font for Chinese labels
        return _pool_slots_figure(num_blocks, block_size, placed, title, set(highlight), crossed, lang)


def _pool_slots_figure(num_blocks: int, block_size: int, placed: dict[int, str], title: str,
                       highlight: set[int], crossed: Iterable[int], lang: str):
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle
    fig, ax = plt.subplots(figsize=(1.1 + 0.75 * block_size, 0.45 + 0.36 * num_blocks))
    for b in range(num_blocks):
        for o in range(block_size):
            slot = b * block_size + o
            filled = slot in placed
            colour = "#E69F00" if slot in highlight else ("#56B4E9" if filled else "#F2F2F2")
            ax.add_patch(Rectangle((o, num_blocks - 1 - b), 1, 1, facecolor=colour, edgecolor="#888"))
            ax.text(o + 0.5, num_blocks - 1 - b + 0.68, str(slot), ha="center", va="center", fontsize=7, color="#444")
            if filled:
                ax.text(o + 0.5, num_blocks - 1 - b + 0.3, placed[slot], ha="center", va="center", fontsize=8)
    for slot in crossed:
        b, o = divmod(slot, block_size)
        ax.text(o + 0.5, num_blocks - 1 - b + 0.32, "✗", ha="center", va="center", fontsize=13, color="#D55E00")
    ax.set_xlabel({"en": "offset t % B", "zh": "块内偏移 t % B"}[lang], fontsize=9)
    ax.set_xlim(0, block_size)
    ax.set_ylim(0, num_blocks)
    ax.set_xticks([o + 0.5 for o in range(block_size)], [str(o) for o in range(block_size)])
    ax.set_yticks([num_blocks - 1 - b + 0.5 for b in range(num_blocks)], [f"#{b}" for b in range(num_blocks)])
    ax.tick_params(length=0)
    ax.set_title(title, fontsize=10)
    for side in ax.spines.values():
        side.set_visible(False)
    fig.tight_layout()
    return fig
