"""The demo's live loop: ▶ Generate runs the engine as an asyncio task on the event loop the demo
was built on (in a kernel, the main thread's): one engine step, then a yield so clicks, typed
prompts and students' prompts are handled between steps; the views refresh only when the
LiveRunner says so (live.py), so rendering does not bound generation. A refresh keeps the
timeline's cursor at the newest step and notifies the views once; views that follow the live end
move with it (the dashboard pauses the loop when the teacher leaves the live end: app.py). No
widgets here: the dashboard and the benchmark drive the same loop."""
import asyncio
from collections.abc import Callable
from time import perf_counter

from blockviz.demo.live import LiveRunner
from blockviz.demo.settings import DemoSettings
from blockviz.i18n import t

IDLE_SECONDS = 0.1       # while generating with nothing to run: wait this long for a request to arrive
PACED_VIEW_BUDGET = 0.5  # paced, the engine waits between steps anyway: the views may use that time


class LiveLoop:

    def __init__(self, engine, settings: DemoSettings, refresh: Callable[[], None],
                 on_state: Callable[[], None] = lambda: None, say: Callable[..., None] = lambda text, error=False: None):
        self.engine = engine
        self.settings = settings
        self.refresh_views = refresh    # notify the views once: the runner calls it when due
        self.on_state = on_state        # playing, pace or the rate changed
        self.say = say
        self.lang = settings.lang
        self.playing = False
        self.task: asyncio.Task | None = None
        self._last_key = None
        self._rate = (perf_counter(), 0, 0.0)   # (time, tokens, tokens/s) at the last live refresh
        self.runner = LiveRunner(engine, self._live_refresh, budget=settings.view_budget)
        self.set_pace(settings.pace)

    @property
    def rate(self) -> float:
        return self._rate[2]

    def generated_tokens(self) -> int:
        return sum(seq.num_completion_tokens for seq in self.engine.seqs.values())

    def play(self):
        """Generate live. In a kernel this returns at once and runs as a task on its event loop;
        without a running loop (a plain script) it runs to the end here."""
        self.playing = True
        self.on_state()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None:
            self.runner.run()
            self.playing = False
            self.on_state()
        elif self.task is None:
            self.task = loop.create_task(self.generate())

    def pause(self):
        self.playing = False
        self.on_state()

    def set_pace(self, pace: float):
        """At most `pace` engine steps per second (0: flat out). Flat out, the views refresh at most every
        refresh_ms and take at most view_budget of the time. Paced, the engine waits between steps
        anyway, so the views may refresh after every step and take up to half the time. A plain-script
        play() ignores the pace."""
        self.steps_per_second = pace
        interval = self.settings.refresh_ms / 1000
        self.runner.interval = min(interval, 0.5 / pace) if pace else interval  # paced: due at every step
        self.runner.budget = max(self.settings.view_budget, PACED_VIEW_BUDGET) if pace else self.settings.view_budget

    async def generate(self):
        """One engine step, a yield, a refresh when due; until paused."""
        try:
            while self.playing:
                started = perf_counter()
                try:
                    ran = self.runner.step()
                except Exception as e:  # e.g. a request that outgrew the pool: show it, stop cleanly
                    self.say(t("demo.error", self.lang, reason=f"{type(e).__name__}: {e}"), error=True)
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
            self.task = None
            self.runner.maybe_refresh(force=True)
            self.on_state()

    def _live_refresh(self):
        """Move the cursor to the newest step and notify every view once."""
        s = self.engine
        key = (s.num_steps, len(s.pending_arrivals))
        if key == self._last_key:
            return  # idle: nothing new to draw
        self._last_key = key
        now, tokens = perf_counter(), self.generated_tokens()
        then, before, rate = self._rate
        if now > then and tokens != before:
            rate = (tokens - before) / (now - then)
        self._rate = (now, tokens, rate if self.playing else 0.0)
        s.cursor = s.last_step
        self.refresh_views()
