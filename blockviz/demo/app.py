"""The teacher's dashboard: a real model serving requests that share a system prompt, live.

    demo = Demo(DemoSettings(model="/path/to/Qwen3-0.6B", device="cuda"))
    demo            # in a notebook: header, ▶ Generate, a typed-prompt control, every view, the requests

The live loop is loop.py, the thread confinement confine.py, the header, status line and requests
table render.py (pure). Under `blockviz demo` the dashboard also feeds the class page (feed.py over
link.py to classroom.py) after every refresh, and takes students' prompts while the teacher allows.
"""
import asyncio
import os
import queue
import threading
import unicodedata
import weakref
from pathlib import Path

import ipywidgets as w

from blockviz.demo.classroom import MAX_PROMPT_CHARS
from blockviz.demo.confine import confine_messages
from blockviz.demo.feed import ClassFeed
from blockviz.demo.hits import HitLedger
from blockviz.demo.link import PAGE_ENV, ClassLink
from blockviz.demo.loop import LiveLoop
from blockviz.demo.render import Status, Texts, header_html, requests_table_html, status_html, totals_html
from blockviz.demo.settings import SETTINGS_ENV, SETTINGS_FILE, DemoSettings, Plan
from blockviz.engine.sequence import SequenceStatus
from blockviz.i18n import t
from blockviz.markup import esc
from blockviz.sampling_params import SamplingParams
from blockviz.views.dashboard import Dashboard

PACES = (1, 2, 4, 8, 16, 32, 0)  # steps per second the pace control offers; 0: as fast as the engine goes
MAX_STUDENT_WAITING = 8  # students' requests waiting at once; more are refused until some start
MAX_STUDENT_LINES = 10   # the teacher's list of students' prompts shows the newest ones
CSS = (Path(__file__).parent / "static" / "dashboard.css").read_text(encoding="utf-8")
_DEMOS: "weakref.WeakSet[Demo]" = weakref.WeakSet()  # a new Demo pauses the ones it replaces
_SHARED: dict[str, "Demo"] = {}  # settings file -> its demo: every page that opens the notebook shares it


def build_engine(plan: Plan):
    from blockviz.llm import LLM
    s = plan.settings
    return LLM(s.model_dir, device=plan.device, dtype=s.dtype, kvcache_block_size=s.block_size,
               num_kvcache_blocks=plan.num_blocks, max_num_batched_tokens=s.max_num_batched_tokens, seed=s.seed,
               history=s.history, policy=s.policy)


class Demo(w.VBox):

    def __init__(self, settings: DemoSettings | None = None, engine=None, plan: Plan | None = None,
                 link: ClassLink | None = None):
        for older in list(_DEMOS):
            older.pause()
        self.settings = settings = settings or DemoSettings()
        self.plan = plan or settings.resolve()
        self.engine = engine if engine is not None else build_engine(self.plan)
        self.lang = lang = settings.lang
        self.texts = Texts(self.engine.decode)
        self.ledger = HitLedger(settings.block_size, radix=self.engine.policy.name == "sglang")
        self.students: list[str] = []  # the teacher's list of students' prompts, as HTML lines
        self._student_ids: list[int] = []
        self.live = LiveLoop(self.engine, settings, self.engine.notify, on_state=self._sync_button, say=self._say)
        self.runner = self.live.runner
        self.runner.schedule(self.plan.workload(), settings.temperature)
        self.runner.admit()  # the first request(s) wait in frame 0, so the pool has something to show at once
        self.feed = ClassFeed(self.engine, header_html(self.plan, lang), tuple(self.plan.system_ids), self.ledger,
                              self.texts, lang)

        page = os.environ.get(PAGE_ENV) if link is not None else None
        where = (f'<div class="bv-demo-class">{esc(t("demo.class_page", lang))} <a href="{esc(page)}" target="_blank" '
                 f'rel="noopener">{esc(page)}</a></div>' if page else "")
        self.header = w.HTML(f"<style>{CSS}</style>" + header_html(self.plan, lang) + where)
        self.header.add_class("bv-demo-head")
        self.play_button = w.Button(description=t("demo.generate", lang), tooltip=t("demo.generate.tip", lang),
                                    button_style="success")
        self.play_button.add_class("bv-demo-play")
        self.play_button.on_click(lambda _: self.toggle())
        paces = sorted(set(PACES) | {settings.pace}, key=lambda p: p or float("inf"))
        self.pace = w.Dropdown(options=[(t("demo.pace.max", lang) if p == 0 else t("demo.pace.n", lang, n=f"{p:g}"), p)
                                        for p in paces], value=settings.pace, description=t("demo.pace", lang),
                               layout=w.Layout(width="16em"))
        self.pace.add_class("bv-demo-pace")
        self.pace.observe(lambda change: self.set_pace(change["new"]), "value")
        self.stats = w.HTML()
        self.stats.add_class("bv-demo-stats-box")
        self.prompt = w.Text(placeholder=t("demo.prompt", lang), layout=w.Layout(width="36em"))
        self.prompt.add_class("bv-demo-prompt")
        self.after_system = w.Checkbox(value=bool(self.plan.system_ids), description=t("demo.after_system", lang),
                                       indent=False, layout=w.Layout(width="auto"))
        self.max_tokens = w.BoundedIntText(value=settings.max_tokens, min=1, max=self.plan.max_model_len,
                                           description=t("demo.max_tokens", lang), layout=w.Layout(width="11em"))
        self.add_button = w.Button(description=t("demo.add", lang), button_style="primary")
        self.add_button.add_class("bv-demo-add")
        self.add_button.on_click(lambda _: self.add_typed())
        self.students_open = w.Checkbox(value=False, description=t("demo.students", lang), indent=False,
                                        layout=w.Layout(width="auto"))
        self.students_open.add_class("bv-demo-students-open")
        self.students_open.observe(lambda _: self.publish(), "value")
        self.student_list = w.HTML()
        self.student_list.add_class("bv-demo-students")
        self.message = w.HTML()
        self.message.add_class("bv-demo-message")
        self.dashboard = Dashboard(self.engine, lang)
        self.dashboard.player.observe(self._follow_changed, "follow")
        self.dashboard.player.observe(lambda _: self._on_change(None), "step")  # the teacher moved the views
        self._shown_key = None
        self.totals = w.HTML()
        self.table = w.HTML()
        self.table.add_class("bv-demo-requests")
        self.engine.on_change(self._on_change)
        self.loop: asyncio.AbstractEventLoop | None = None
        try:  # in a kernel the cell runs on the main thread's event loop: the engine's thread from now on
            self.loop = asyncio.get_running_loop()
        except RuntimeError:
            pass  # no event loop (a script, a test): messages are handled where they arrive
        self.link = link
        self._inbox: queue.SimpleQueue = queue.SimpleQueue()  # calls from the link's thread
        if link is not None:
            link.on_prompt, link.on_connect = self._prompt_from_link, self._connected_from_link
        self._update_status()
        controls = [self.prompt, self.after_system, self.max_tokens, self.add_button]
        if link is not None:
            controls.append(self.students_open)
        super().__init__([self.header, w.HBox([self.play_button, self.pace, self.stats]), w.HBox(controls),
                          self.message, self.student_list, self.dashboard, self.totals, self.table])
        self.add_class("bv-demo")
        _DEMOS.add(self)
        if self.loop is not None:
            confine_messages(self, self.loop, threading.current_thread())
        if link is not None and link.connected.is_set():
            self.publish(full=True)

    @classmethod
    def from_settings(cls, path: str | os.PathLike | None = None) -> "Demo":
        """The demo the settings file describes: `path`, else $BLOCKVIZ_DEMO_SETTINGS, else ./blockviz-demo.json.
        Under `blockviz demo` it feeds the class page (the server's address is in the environment).

        One per settings file and kernel: when a second page opens the notebook its cell gets the
        running demo, so every teacher's page shows, and can drive, the same engine."""
        path = os.path.abspath(path or os.environ.get(SETTINGS_ENV) or SETTINGS_FILE)
        if path not in _SHARED:
            _SHARED[path] = cls(DemoSettings.load(path), link=ClassLink.from_environment())
        return _SHARED[path]

    # --- generation (loop.py) -----------------------------------------------------------

    @property
    def playing(self) -> bool:
        return self.live.playing

    @property
    def steps_per_second(self) -> float:
        return self.live.steps_per_second

    def toggle(self):
        self.pause() if self.playing else self.play()

    def play(self):
        """Generate live, the views following the newest step."""
        self.dashboard.follow = True
        self.live.play()

    def pause(self):
        self.live.pause()

    def set_pace(self, pace: float):
        self.live.set_pace(pace)

    def _follow_changed(self, change):
        if not change["new"] and self.playing:  # the teacher stepped back or jumped: stay there
            self.pause()
            self._say(t("demo.paused_by_hand", self.lang))

    def _on_change(self, cursor: int | None):
        """The engine ran or took a request, or the views moved: redraw the status and table and
        feed the class page, once per change of what they show."""
        self._drain()
        s = self.engine
        key = (self.dashboard.step, s.num_steps, len(s.seqs), len(s.pending_arrivals), self.playing)
        if key != self._shown_key:
            self._shown_key = key
            self._update_status()
            self.publish()

    def _sync_button(self):
        self.play_button.description = t("demo.pause" if self.playing else "demo.generate", self.lang)
        self.play_button.button_style = "warning" if self.playing else "success"
        notice = t("demo.idle", self.lang)
        if self.live.idle:
            self._say(notice)
        elif self.message.value == self._said(notice):  # no longer true: a request came, or paused
            self._say("")
        self._update_status()
        self.publish()

    # --- requests -----------------------------------------------------------------------

    def _add_tokens(self, token_ids: list[int], max_tokens: int):
        self.plan.check_fits(token_ids, max_tokens)
        params = SamplingParams(temperature=self.settings.temperature, max_tokens=max_tokens)
        return self.engine.add_request(token_ids, params)

    def add_request(self, text: str, after_system: bool = True, max_tokens: int | None = None):
        """Queue a request for `text` (after the shared system prompt unless after_system=False).
        Raises ValueError, adding nothing, for an empty prompt or one that could never fit."""
        if not text.strip():
            raise ValueError(t("demo.empty", self.lang))
        seq = self._add_tokens(self.plan.prompt_tokens(text, after_system), max_tokens or self.settings.max_tokens)
        self._update_status()
        self.publish()
        return seq

    def add_typed(self):
        """The Add request button: the typed prompt, the checkbox and the max tokens box."""
        try:
            seq = self.add_request(self.prompt.value, self.after_system.value, self.max_tokens.value)
        except ValueError as e:
            self._say(t("demo.rejected", self.lang, reason=str(e)), error=True)
            return None
        self._say(t("demo.added", self.lang, label=self.engine.labels[seq.seq_id], tokens=seq.num_prompt_tokens))
        self.prompt.value = ""
        return seq

    def student_prompt(self, text: str, client: str):
        """A prompt from the class page (the server checked length and rate): a request after the
        system prompt while the teacher allows students' prompts, listed for the teacher either way."""
        text = "".join(ch for ch in text if ch in "\n\t" or unicodedata.category(ch)[0] != "C")[:MAX_PROMPT_CHARS]
        reason, label = None, None
        if not self.students_open.value:
            reason = t("demo.students.closed", self.lang)
        elif sum(self.engine.seqs[i].status == SequenceStatus.WAITING for i in self._student_ids) >= MAX_STUDENT_WAITING:
            reason = t("demo.students.full", self.lang, n=MAX_STUDENT_WAITING)
        else:
            try:
                seq = self.add_request(text)
                label = self.engine.labels[seq.seq_id]
                self._student_ids.append(seq.seq_id)
            except ValueError as e:
                reason = str(e)
        what = t("demo.students.added", self.lang, label=label) if label else t("demo.rejected", self.lang, reason=reason)
        self.students.insert(0, f"<li>{esc(client)}: “{esc(text)}” → {esc(what)}</li>")
        del self.students[MAX_STUDENT_LINES:]
        self.student_list.value = (f"<b>{esc(t('demo.students.title', self.lang))}</b><ol>{''.join(self.students)}</ol>")

    def _say(self, text: str, error: bool = False):
        self.message.value = self._said(text, error)

    @staticmethod
    def _said(text: str, error: bool = False) -> str:
        cls = ' class="bv-error"' if error else ""
        return f"<span{cls}>{esc(text)}</span>"

    # --- the class page -----------------------------------------------------------------

    def _on_engine_thread(self, callback, *args):
        """From the link's thread: run `callback` on the engine's, between two steps (without an event
        loop, at the next change of the engine, on the thread that runs it)."""
        self._inbox.put((callback, args))
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self._drain)

    def _drain(self):
        while True:
            try:
                callback, args = self._inbox.get_nowait()
            except queue.Empty:
                return
            callback(*args)

    def _prompt_from_link(self, text: str, client: str):
        self._on_engine_thread(self.student_prompt, text, client)

    def _connected_from_link(self):
        self._on_engine_thread(self.publish, True)

    def publish(self, full: bool = False):
        """Send the class page what changed (only under `blockviz demo`, where there is a link)."""
        if self.link is None or not self.link.connected.is_set():
            return
        self.feed.prompts_open = self.students_open.value
        self.link.send(self.feed.message(self.status(), full=full))

    # --- what the class reads -----------------------------------------------------------

    def generated_tokens(self) -> int:
        return self.live.generated_tokens()

    def view_ms(self) -> float:
        """Milliseconds the Python side of the views took per live refresh, on average."""
        r = self.runner
        return 1000 * r.view_seconds / r.refreshes if r.refreshes else 0.0

    def counts(self) -> dict[str, int]:
        s = self.engine.scheduler
        finished = len(self.engine.seqs) - len(s.running) - len(s.waiting)
        return {"running": len(s.running), "waiting": len(s.waiting), "finished": finished}

    def status(self) -> Status:
        """The numbers of the status line, at the step the teacher's views show."""
        return Status(self.dashboard.step, self.engine.last_step, self.generated_tokens(), self.live.rate,
                      playing=self.playing, idle=self.live.idle, **self.counts())

    def _update_status(self):
        s = self.engine
        self.ledger.update(s)
        self.stats.value = status_html(self.status(), self.lang).replace(
            "</div>", f'<span class="bv-field">{esc(t("demo.f.views", self.lang, ms=f"{self.view_ms():.1f}"))}'
                      "</span></div>")
        self.totals.value = totals_html(self.ledger, self.lang)
        step = self.dashboard.step
        pending = s.pending_arrivals if step == s.last_step else ()
        self.table.value = requests_table_html(s.snapshot(step), s.labels, pending, self.ledger, self.texts,
                                               tuple(self.plan.system_ids), self.lang)
