"""A live vLLM watch in JupyterLab: the player over the chain forest, the eviction order and the
counters (views/render_forest.py draws them; js/vllm_watch.js shows them).

vLLM can send thousands of batches a second, and the watch takes them in on its own thread. The
widget does not redraw for each: `Throttled` hands the player and the view a timeline whose
last step moves at most every `interval` seconds, so a burst becomes a few redraws, the last at its end.
"""
import threading
import time

import anywidget
import ipywidgets as w
import traitlets

from blockviz.i18n import t
from blockviz.views.assets import JS
from blockviz.views.player import Player
from blockviz.views.render_forest import counters, render_counters, render_evictions, render_forest
from blockviz.views.stepping import Stepped
from blockviz.vllm.watch import Watch

STRINGS = ("waiting",)


class Throttled:
    """The Timeline interface of a Watch, whose changes reach listeners at most every `interval` s,
    from one thread of its own (so two redraws never overlap)."""

    can_run = False

    def __init__(self, watch: Watch, interval: float = 0.05):
        self.watch, self.interval = watch, interval
        self._listeners = []
        self._dirty = threading.Event()
        self._last_call = 0.0
        self._freeze()
        watch.on_change(lambda cursor: self._dirty.set())
        threading.Thread(target=self._run, daemon=True, name="blockviz-vllm-view").start()

    def _freeze(self):
        self.first_step, self.last_step = self.watch.first_step, max(self.watch.last_step, 0)
        self.cursor = max(self.watch.cursor, self.first_step)

    def is_finished(self) -> bool:
        return True

    def on_change(self, listener):
        self._listeners.append(listener)

    def _run(self):
        while not self.watch.closed:
            if not self._dirty.wait(timeout=1.0):
                continue
            time.sleep(max(0.0, self._last_call + self.interval - time.monotonic()))
            self._dirty.clear()
            self._last_call = time.monotonic()
            self._freeze()
            for listener in list(self._listeners):
                listener(self.cursor)

    def picture(self, step: int):
        return self.watch.picture(step)


class ForestView(anywidget.AnyWidget, Stepped):
    """The forest, eviction order and counters of one watch at its step."""
    _esm = JS / "vllm_watch.js"  # imports nothing: anywidget reads (and with ANYWIDGET_HMR=1 watches) the file
    _css = JS / "vllm_watch.css"
    forest = traitlets.Unicode("").tag(sync=True)
    evictions = traitlets.Unicode("").tag(sync=True)
    counters = traitlets.Unicode("").tag(sync=True)
    problem = traitlets.Unicode("").tag(sync=True)
    strings = traitlets.Dict().tag(sync=True)

    def __init__(self, timeline: Throttled, lang: str = "en", metrics_every: float = 1.0, **kwargs):
        super().__init__(strings={k: t(f"vllm.player.{k}", lang) for k in STRINGS},
                         step=timeline.last_step, follow=True, **kwargs)
        self.lang, self.watch, self.metrics_every = lang, timeline.watch, metrics_every
        self._server, self._server_at = None, 0.0
        self._shown: tuple | None = None
        self.start(timeline)
        self.show_step()

    def _server_counters(self):
        if time.monotonic() - self._server_at > self.metrics_every:
            self._server, self._server_at = self.watch.server_counters(), time.monotonic()
        return self._server

    def show_step(self):
        watch = self.watch
        if watch.last_step < 0:
            return   # nothing received yet: the page says it is waiting
        key = (self.step, watch.last_step if self.step == watch.last_step else None, watch.first_step)
        try:
            picture = watch.picture(self.step)
        except IndexError:   # the window moved on since the throttled timeline froze
            picture = watch.picture(watch.first_step)
        problems = sum(watch.problem_counts.values())
        latest = watch.problems[-1].reason if watch.problems else ""
        values = counters(picture, self._server_counters(), problems)
        with self.hold_sync():
            if key != self._shown:
                self.forest = render_forest(picture, decode=watch.decode, lang=self.lang)
                self.evictions = render_evictions(picture, decode=watch.decode, lang=self.lang)
                self._shown = key
            self.counters = render_counters(values, lang=self.lang)
            self.problem = t("vllm.problem.last", self.lang, reason=latest) if latest else ""


class WatchView(w.VBox):
    """show(watch): the player (its own step, following the live end) driving the forest view."""

    def __init__(self, watch: Watch, lang: str = "en", interval: float = 0.05, **kwargs):
        watch.tokenizer   # load it here, not on the watch's first redraw
        self.timeline = Throttled(watch, interval)
        self.view = ForestView(self.timeline, lang=lang)
        self.player = Player(self.timeline, lang=lang, follow=True)
        self.player.drive(self.view)
        super().__init__([self.player, self.view], **kwargs)
        self.add_class("bv-vllm-watch")
