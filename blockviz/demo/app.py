"""The demo dashboard: a real model serving requests that share a system prompt, live.

    demo = Demo(DemoSettings(model="/path/to/Qwen3-0.6B", device="cuda"))
    demo            # in a notebook: header, ▶ Generate, a typed-prompt control, every view, the requests

▶ Generate runs the engine as an asyncio task on the kernel's event loop: one engine step, then a
yield so button clicks and typed prompts are handled between steps, and the views refresh only when
the LiveRunner says so (blockviz/demo/live.py), so rendering does not bound generation. Any manual
move of the cursor (the player's ◀, a jump) pauses generation; ▶ Generate goes on from the newest step.

One thread owns the engine. ipykernel 7 may handle a widget's messages on a subshell thread while
the main thread runs the generation task, so every widget of the demo hands its messages to the
event loop the demo was built on (`confine_messages`): a click can never land in the middle of a step.
"""
import asyncio
import html
import os
import threading
import weakref
from time import perf_counter

import ipywidgets as w

from blockviz.demo.live import LiveRunner
from blockviz.demo.settings import SETTINGS_ENV, SETTINGS_FILE, DemoSettings, Plan, format_bytes
from blockviz.i18n import t as tr
from blockviz.sampling_params import SamplingParams
from blockviz.views.dashboard import Dashboard

IDLE_SECONDS = 0.1   # while generating with nothing to run: wait this long for a request to arrive
PACES = (1, 2, 4, 8, 16, 32, 0)  # steps per second the pace control offers; 0: as fast as the engine goes
PACED_VIEW_BUDGET = 0.5  # paced, the engine waits between steps anyway: the views may use that time
MAX_FINISHED_ROWS = 12  # the requests table shows every unfinished request and the newest finished ones
_DEMOS: "weakref.WeakSet[Demo]" = weakref.WeakSet()  # a new Demo pauses the ones it replaces
_SHARED: dict[str, "Demo"] = {}  # settings file -> its demo: every page that opens the notebook shares it

CSS = """<style>
.bv-demo-head h3 { margin: 4px 0; }
.bv-demo-head details { font-size: 12px; color: var(--jp-ui-font-color2, #555); }
.bv-demo-stats { font-family: monospace; padding: 4px 8px; }
.bv-demo-message { padding: 0 8px; font-size: 12px; }
.bv-demo-message .bv-error { color: #b00020; }
table.bv-demo-table { border-collapse: collapse; font-size: 12px; width: 100%; }
table.bv-demo-table th, table.bv-demo-table td { border-bottom: 1px solid var(--jp-border-color2, #ddd);
  padding: 2px 6px; text-align: left; vertical-align: top; }
table.bv-demo-table td.bv-text { font-family: Georgia, serif; white-space: pre-wrap; }
table.bv-demo-table td.bv-bt { font-family: monospace; }
table.bv-demo-table .bv-user { font-weight: bold; }
table.bv-demo-table tr[data-status="running"] td:nth-child(2) { color: #0b6e4f; font-weight: bold; }
table.bv-demo-table tr[data-status="waiting"] td:nth-child(2) { color: #a15c00; }
table.bv-demo-table tr[data-status="finished"] td { color: var(--jp-ui-font-color2, #666); }
</style>"""


def widget_tree(widget):
    """A widget and everything inside it: children, tabs, layouts and styles."""
    seen, stack = set(), [widget]
    while stack:
        part = stack.pop()
        if not isinstance(part, w.Widget) or id(part) in seen:
            continue
        seen.add(id(part))
        yield part
        stack.extend(getattr(part, "children", ()))
        stack.extend(x for x in (getattr(part, "layout", None), getattr(part, "style", None)) if x is not None)


def confine_messages(widget, loop: asyncio.AbstractEventLoop, thread: threading.Thread):
    """Handle every frontend message of `widget`'s tree on `loop` (which runs in `thread`), in the
    order they arrive, whichever thread the kernel received them on."""
    for part in widget_tree(widget):
        comm = getattr(part, "comm", None)
        if comm is None:
            continue

        def on_msg(msg, handle=part._handle_msg):
            if threading.current_thread() is thread:
                loop.call_soon(handle, msg)  # behind any message already passed over from another thread
            else:
                loop.call_soon_threadsafe(handle, msg)

        comm.on_msg(on_msg)


def build_engine(plan: Plan):
    from blockviz.llm import LLM
    s = plan.settings
    return LLM(s.model_dir, device=plan.device, dtype=s.dtype, kvcache_block_size=s.block_size,
               num_kvcache_blocks=plan.num_blocks, max_num_batched_tokens=s.max_num_batched_tokens, seed=s.seed)


class Demo(w.VBox):

    def __init__(self, settings: DemoSettings | None = None, engine=None, plan: Plan | None = None):
        for older in list(_DEMOS):
            older.pause()
        self.settings = settings = settings or DemoSettings()
        self.plan = plan or settings.resolve()
        self.engine = engine if engine is not None else build_engine(self.plan)
        self.lang = lang = settings.lang
        self.playing = False
        self._task: asyncio.Task | None = None
        self._follow = True         # live refreshes move the cursor to the newest step
        self._moved = False         # the cursor was moved by hand (player, jump) since play()
        self._refreshing = False
        self._last_refresh_key = None
        self._rate = (perf_counter(), 0, 0.0)   # (time, tokens, tokens/s) at the last live refresh
        self._texts: dict[tuple[int, str], tuple[int, str]] = {}  # (seq_id, part) -> (length, text)
        self.runner = LiveRunner(self.engine, self._live_refresh, budget=settings.view_budget)
        self.set_pace(settings.pace)
        self.runner.schedule([lambda k=k: self._add_tokens(self.plan.request_tokens(k), settings.max_tokens)
                              for k in range(settings.requests)], settings.arrival_every)
        self.runner.admit()  # the first request(s) wait in frame 0, so the pool has something to show at once

        self.header = w.HTML(self._header_html())
        self.header.add_class("bv-demo-head")
        self.play_button = w.Button(description=tr("demo.generate", lang), tooltip=tr("demo.generate.tip", lang),
                                    button_style="success")
        self.play_button.add_class("bv-demo-play")
        self.play_button.on_click(lambda _: self.toggle())
        paces = sorted(set(PACES) | {settings.pace}, key=lambda p: p or float("inf"))
        self.pace = w.Dropdown(options=[(tr("demo.pace.max", lang) if p == 0 else tr("demo.pace.n", lang, n=f"{p:g}"), p)
                                        for p in paces], value=settings.pace, description=tr("demo.pace", lang),
                               layout=w.Layout(width="16em"))
        self.pace.add_class("bv-demo-pace")
        self.pace.observe(lambda change: self.set_pace(change["new"]), "value")
        self.stats = w.HTML()
        self.stats.add_class("bv-demo-stats-box")
        self.prompt = w.Text(placeholder=tr("demo.prompt", lang), layout=w.Layout(width="36em"))
        self.prompt.add_class("bv-demo-prompt")
        self.after_system = w.Checkbox(value=bool(self.plan.system_ids), description=tr("demo.after_system", lang),
                                       indent=False, layout=w.Layout(width="auto"))
        self.max_tokens = w.BoundedIntText(value=settings.max_tokens, min=1, max=self.plan.max_model_len,
                                           description=tr("demo.max_tokens", lang), layout=w.Layout(width="11em"))
        self.add_button = w.Button(description=tr("demo.add", lang), button_style="primary")
        self.add_button.add_class("bv-demo-add")
        self.add_button.on_click(lambda _: self.add_typed())
        self.message = w.HTML()
        self.message.add_class("bv-demo-message")
        self.dashboard = Dashboard(self.engine, lang)
        self.table = w.HTML()
        self.table.add_class("bv-demo-requests")
        self.engine.on_change(self._on_change)
        self._update_status()
        super().__init__([self.header, w.HBox([self.play_button, self.pace, self.stats]),
                          w.HBox([self.prompt, self.after_system, self.max_tokens, self.add_button]),
                          self.message, self.dashboard, self.table])
        self.add_class("bv-demo")
        _DEMOS.add(self)
        try:  # in a kernel the cell runs on the main thread's event loop: the engine's thread from now on
            confine_messages(self, asyncio.get_running_loop(), threading.current_thread())
        except RuntimeError:
            pass  # no event loop (a script, a test): messages are handled where they arrive

    @classmethod
    def from_settings(cls, path: str | os.PathLike | None = None) -> "Demo":
        """The demo the settings file describes: `path`, else $BLOCKVIZ_DEMO_SETTINGS, else ./blockviz-demo.json.

        One per settings file and kernel: when a second page opens the notebook (a class on a shared
        URL) its cell gets the running demo, so every page shows, and can drive, the same engine."""
        path = os.path.abspath(path or os.environ.get(SETTINGS_ENV) or SETTINGS_FILE)
        if path not in _SHARED:
            _SHARED[path] = cls(DemoSettings.load(path))
        return _SHARED[path]

    # --- generation ---------------------------------------------------------------------

    def toggle(self):
        self.pause() if self.playing else self.play()

    def play(self):
        """Generate live. In a kernel this returns at once and runs as a task on its event loop;
        without a running loop (a plain script) it runs to the end here."""
        self.playing, self._follow, self._moved = True, True, False
        self._sync_button()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None:
            self.runner.run()
            self.playing = False
            self._sync_button()
        elif self._task is None:
            self._task = loop.create_task(self.generate())

    def set_pace(self, pace: float):
        """At most `pace` engine steps per second (0: flat out). Flat out, the views refresh at most every
        refresh_ms and take at most view_budget of the time. Paced, the engine waits between steps
        anyway, so the views may refresh after every step and take up to half the time. A plain-script
        play() ignores the pace."""
        self.steps_per_second = pace
        interval = self.settings.refresh_ms / 1000
        self.runner.interval = min(interval, 0.5 / pace) if pace else interval  # paced: due at every step
        self.runner.budget = max(self.settings.view_budget, PACED_VIEW_BUDGET) if pace else self.settings.view_budget

    def pause(self):
        self.playing = False
        self._sync_button()

    async def generate(self):
        """The live loop: one engine step, a yield, a refresh when due; until paused."""
        try:
            while self.playing:
                started = perf_counter()
                try:
                    ran = self.runner.step()
                except Exception as e:  # e.g. a request that outgrew the pool: show it, stop cleanly
                    self._say(tr("demo.error", self.lang, reason=f"{type(e).__name__}: {e}"), error=True)
                    self.playing = False
                    break
                self.runner.maybe_refresh()
                if not ran:
                    await asyncio.sleep(IDLE_SECONDS)
                elif self.steps_per_second:
                    await asyncio.sleep(max(0.0, started + 1 / self.steps_per_second - perf_counter()))
                else:
                    await asyncio.sleep(0)  # let clicks and typed prompts in between steps
        finally:
            self._task = None
            self.runner.maybe_refresh(force=True)
            self._sync_button()

    def _live_refresh(self):
        """What the runner calls when a refresh is due: follow the newest step and notify every view once."""
        s = self.engine
        if self._follow and self._moved:  # someone stepped back or jumped: stay there
            self._follow = False
            self.playing = False
            self._say(tr("demo.paused_by_hand", self.lang))
        key = (s.num_steps, len(s.pending_arrivals), s.cursor, self._follow)
        if key == self._last_refresh_key:
            return  # idle: nothing new to draw
        self._last_refresh_key = key
        now, tokens = perf_counter(), self.generated_tokens()
        then, before, rate = self._rate
        if now > then and tokens != before:
            rate = (tokens - before) / (now - then)
        self._rate = (now, tokens, rate if self.playing else 0.0)
        if self._follow:
            s.cursor = s.last_step
        self._refreshing = True
        try:
            s.notify()
        finally:
            self._refreshing = False

    def _on_change(self, cursor: int):
        if not self._refreshing and cursor != self.engine.last_step:
            self._moved = True  # not our refresh, and not following the newest step: a hand move
        self._update_status()

    def _sync_button(self):
        self.play_button.description = tr("demo.pause" if self.playing else "demo.generate", self.lang)
        self.play_button.button_style = "warning" if self.playing else "success"
        self._update_status()

    # --- requests -----------------------------------------------------------------------

    def _add_tokens(self, token_ids: list[int], max_tokens: int):
        self.plan.check_fits(token_ids, max_tokens)
        params = SamplingParams(temperature=self.settings.temperature, max_tokens=max_tokens)
        return self.engine.add_request(token_ids, params)

    def add_request(self, text: str, after_system: bool = True, max_tokens: int | None = None):
        """Queue a request for `text` (after the shared system prompt unless after_system=False).
        Raises ValueError, adding nothing, for an empty prompt or one that could never fit."""
        if not text.strip():
            raise ValueError(tr("demo.empty", self.lang))
        seq = self._add_tokens(self.plan.prompt_tokens(text, after_system), max_tokens or self.settings.max_tokens)
        self._update_status()
        return seq

    def add_typed(self):
        """The Add request button: the typed prompt, the checkbox and the max tokens box."""
        try:
            seq = self.add_request(self.prompt.value, self.after_system.value, self.max_tokens.value)
        except ValueError as e:
            self._say(tr("demo.rejected", self.lang, reason=str(e)), error=True)
            return None
        self._say(tr("demo.added", self.lang, label=self.engine.labels[seq.seq_id], tokens=seq.num_prompt_tokens))
        self.prompt.value = ""
        return seq

    def _say(self, text: str, error: bool = False):
        cls = ' class="bv-error"' if error else ""
        self.message.value = f"<span{cls}>{html.escape(text)}</span>"

    # --- what the class reads -----------------------------------------------------------

    def generated_tokens(self) -> int:
        return sum(seq.num_completion_tokens for seq in self.engine.seqs.values())

    def view_ms(self) -> float:
        """Milliseconds the Python side of the views took per live refresh, on average."""
        r = self.runner
        return 1000 * r.view_seconds / r.refreshes if r.refreshes else 0.0

    def counts(self) -> dict[str, int]:
        s = self.engine.scheduler
        finished = len(self.engine.seqs) - len(s.running) - len(s.waiting)
        return {"running": len(s.running), "waiting": len(s.waiting), "finished": finished}

    def _header_html(self) -> str:
        p, s = self.plan, self.settings
        setup = tr("demo.setup", self.lang, model=html.escape(s.model_dir.name), device=p.device, blocks=p.num_blocks,
                   B=s.block_size, kv=format_bytes(p.num_blocks * p.block_bytes), requests=s.requests,
                   system=len(p.system_ids))
        system = (f"<details><summary>{tr('demo.system', self.lang)}</summary>{html.escape(s.system_prompt)}</details>"
                  if s.system_prompt else "")
        return f"{CSS}<h3>{html.escape(tr('demo.title', self.lang))}</h3><div>{setup}</div>{system}"

    def _update_status(self):
        s = self.engine
        counts = self.counts()
        text = tr("demo.stats", self.lang, step=s.num_steps, tokens=self.generated_tokens(),
                  rate=f"{self._rate[2]:.0f}", views=f"{self.view_ms():.1f}", **counts)
        self.stats.value = (f'<div class="bv-demo-stats" data-step="{s.num_steps}" data-cursor="{s.cursor}" '
                            f'data-playing="{int(self.playing)}" data-tokens="{self.generated_tokens()}">'
                            f"{html.escape(text)}</div>")
        self.table.value = self._table_html()

    def _text(self, seq_id: int, part: str, token_ids) -> str:
        """Decoded text, cached per request and part until its tokens change (decode is the table's cost)."""
        key, length = (seq_id, part), len(token_ids)
        cached = self._texts.get(key)
        if cached is None or cached[0] != length:
            cached = self._texts[key] = (length, self.engine.decode(list(token_ids)))
        return cached[1]

    def _table_html(self) -> str:
        s, lang = self.engine, self.lang
        snapshot = s.snapshot()  # at the cursor
        rows = []
        system = tuple(self.plan.system_ids)
        def text_cell(seq_id, token_ids, num_prompt):
            prompt = tuple(token_ids[:num_prompt])
            own = prompt[len(system):] if system and prompt[:len(system)] == system else prompt
            shown = ("… " if len(own) < len(prompt) else "") + self._text(seq_id, "prompt", own).lstrip()
            generated = self._text(seq_id, "completion", token_ids[num_prompt:])
            return f'<span class="bv-user">{html.escape(shown)}</span>{html.escape(generated)}'
        seqs = list(snapshot.seqs.values())
        finished = [seq for seq in seqs if seq.status == "finished"]
        hidden = {seq.seq_id for seq in finished[:-MAX_FINISHED_ROWS]} if len(finished) > MAX_FINISHED_ROWS else set()
        for seq in seqs:
            if seq.seq_id in hidden:
                continue
            table = " ".join(map(str, seq.block_table[:16])) + (" …" if len(seq.block_table) > 16 else "")
            rows.append(f'<tr data-status="{seq.status}" data-label="{seq.label}"><td>{seq.label}</td>'
                        f"<td>{tr('demo.status.' + seq.status, lang)}</td>"
                        f"<td>{seq.num_prompt_tokens} / {seq.num_cached_tokens} / {len(seq.completion_token_ids)}</td>"
                        f'<td class="bv-bt">[{table}]</td><td class="bv-text">{text_cell(seq.seq_id, seq.token_ids, seq.num_prompt_tokens)}</td></tr>')
        if s.cursor == s.last_step:
            for arrival in s.pending_arrivals:
                if arrival.seq_id in snapshot.seqs:
                    continue
                rows.append(f'<tr data-status="arriving" data-label="{arrival.label}"><td>{arrival.label}</td>'
                            f"<td>{tr('demo.status.arriving', lang)}</td><td>{len(arrival.token_ids)} / 0 / 0</td>"
                            f'<td class="bv-bt">[]</td><td class="bv-text">'
                            f"{text_cell(arrival.seq_id, arrival.token_ids, len(arrival.token_ids))}</td></tr>")
        if not rows:
            return f"<p>{html.escape(tr('demo.none', lang))}</p>"
        if hidden:
            rows.append(f'<tr><td colspan="5">{html.escape(tr("demo.hidden", lang, n=len(hidden)))}</td></tr>')
        head = "".join(f"<th>{tr('demo.col.' + c, lang)}</th>" for c in ("request", "status", "tokens", "blocks", "text"))
        return (f"<h4>{html.escape(tr('demo.requests', lang))}</h4>"
                f'<table class="bv-demo-table"><tr>{head}</tr>{"".join(rows)}</table>')
