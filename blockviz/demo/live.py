"""Live generation that rendering does not bound: the engine runs step after step, and the views
refresh at most every `interval` seconds and never take more than `budget` of the time.

The wait after a refresh is max(interval, its cost × (1 − budget) / budget), capped at max_gap so the
picture moves at least once a second even after one slow refresh.

A refresh moves the cursor to the newest step and notifies the views once, however many steps ran
since the last one: each view draws the newest frame once (frames in between are replayed lazily,
only if someone steps back to them). The runner knows nothing about widgets; `refresh` is any
callable, so the same loop drives the notebook, the benchmark and the tests.
"""
from collections.abc import Callable
from time import perf_counter

from blockviz.workload import Driver, Workload


class LiveRunner:

    def __init__(self, session, refresh: Callable[[], None] | None = None, interval: float = 0.2,
                 budget: float = 0.05, max_gap: float = 1.0, clock: Callable[[], float] = perf_counter):
        if interval < 0 or not 0 < budget <= 1:
            raise ValueError(f"need interval >= 0 and 0 < budget <= 1, got {interval}, {budget}")
        self.session = session
        self.refresh_views = refresh or (lambda: None)
        self.interval = interval
        self.budget = budget
        self.max_gap = max_gap  # one slow refresh (a cold start, a collection) never freezes the views longer
        self.clock = clock
        self.driver: Driver | None = None  # the scripted requests' driver, once scheduled
        self._next_refresh = 0.0
        self.engine_seconds = 0.0   # inside session.advance()
        self.view_seconds = 0.0     # inside refresh
        self.steps = 0
        self.refreshes = 0

    # --- scripted arrivals --------------------------------------------------------------

    def schedule(self, workload: Workload, temperature: float = 0.0):
        """Requests that arrive while the engine runs: `workload`'s, added by the one workload driver
        (Driver) before each step, its steps counted from now. Requests added to the session directly
        (the teacher's) run beside them and keep the engine busy. A new schedule replaces the last."""
        if self.driver is not None:
            self.driver.close()
        self.driver = Driver(workload, self.session, temperature=temperature)

    def admit(self):
        if self.driver is not None:
            self.driver.admit()

    @property
    def all_added(self) -> bool:
        return self.driver is None or self.driver.all_added

    @property
    def has_work(self) -> bool:
        return not self.all_added or not self.session.is_finished()

    # --- the loop -----------------------------------------------------------------------

    def step(self) -> bool:
        """Admit the requests due, then run one engine step; False when there is nothing to run."""
        self.admit()
        if self.session.is_finished():
            return False
        start = self.clock()
        try:
            self.session.advance()
        finally:  # a failed step is a step too: the driver marks what it finished
            if self.driver is not None:
                self.driver.stepped()
        self.engine_seconds += self.clock() - start
        self.steps += 1
        return True

    def refresh_due(self) -> bool:
        return self.clock() >= self._next_refresh

    def maybe_refresh(self, force: bool = False) -> bool:
        """Refresh the views if the last refresh is long enough ago; True if it did."""
        if not force and not self.refresh_due():
            return False
        start = self.clock()
        self.refresh_views()
        end = self.clock()
        took = end - start
        self.view_seconds += took
        self.refreshes += 1
        # wait at least `interval`, and long enough that this refresh's cost stays within the budget,
        # but never more than max_gap
        self._next_refresh = end + max(self.interval, min(took * (1 - self.budget) / self.budget, self.max_gap))
        return True

    def run(self, max_steps: int | None = None) -> int:
        """Step (refreshing when due) until there is nothing to run or max_steps; refresh at the end."""
        steps = 0
        while max_steps is None or steps < max_steps:
            if not self.step():
                break
            steps += 1
            self.maybe_refresh()
        self.maybe_refresh(force=True)
        return steps
