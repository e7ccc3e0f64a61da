"""LiveRunner: scripted arrivals (a workload, played by its driver), and refreshes that never take
more than their share of the time."""
import pytest

from blockviz import Simulator
from blockviz.demo.live import LiveRunner
from blockviz.workload import Request, Workload


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class TimedSim(Simulator):
    """A simulator whose every step takes `step_seconds` on a fake clock."""

    def __init__(self, clock, step_seconds, **kwargs):
        super().__init__(**kwargs)
        self.clock, self.step_seconds = clock, step_seconds

    def advance(self):
        super().advance()
        self.clock.now += self.step_seconds


def every(n: int, max_tokens: list[int]) -> Workload:
    """The demo's scripted arrivals: request k after k × n steps, the gaps counted from the one before."""
    return Workload(4, 16, [Request(f"request {k}", max_tokens=m, arrival=k * n, label=f"r{k}")
                            for k, m in enumerate(max_tokens)], when_idle="shift")


def test_arrivals_come_one_every_n_steps_and_at_once_when_idle():
    sim = Simulator(num_blocks=16, block_size=4)
    runner = LiveRunner(sim)
    runner.schedule(every(3, [8, 8, 8]))
    assert runner.has_work and not sim.seqs
    runner.run()
    assert [s.added_step for s in runner.driver.played.served] == [0, 3, 6]
    assert [sim.labels[i] for i in sim.seqs] == ["r0", "r1", "r2"]
    assert sim.is_finished() and not runner.has_work
    # when the engine runs dry before the next arrival is due, that request comes at once, and the
    # next one `every` steps after it (not at its named step)
    sim = Simulator(num_blocks=16, block_size=4)
    runner = LiveRunner(sim)
    runner.schedule(every(5, [1, 8, 1]))
    runner.run()
    assert [s.added_step for s in runner.driver.played.served] == [0, 1, 6]


def test_requests_added_by_hand_run_beside_the_scripted_ones_and_keep_their_pace():
    sim = Simulator(num_blocks=16, block_size=4)
    runner = LiveRunner(sim)
    runner.schedule(every(4, [1, 1]))
    runner.step()
    sim.add("by hand", max_tokens=6, label="teacher")  # the teacher's, while the engine runs
    runner.run()
    assert [s.added_step for s in runner.driver.played.served] == [0, 4]  # the engine never ran dry
    assert sim.seqs[next(i for i, label in sim.labels.items() if label == "teacher")].is_finished


def test_every_zero_admits_all_at_once():
    sim = Simulator(num_blocks=16, block_size=4)
    runner = LiveRunner(sim)
    runner.schedule(every(0, [2, 2, 2]))
    runner.step()
    assert len(sim.seqs) == 3


def test_refreshes_at_most_every_interval_and_the_views_see_the_last_step():
    clock = Clock()
    sim = TimedSim(clock, 0.01, num_blocks=64, block_size=4)
    for k in range(4):
        sim.add(f"request number {k}", max_tokens=40, ignore_eos=True)
    shown = []
    runner = LiveRunner(sim, lambda: shown.append(sim.num_steps), interval=0.1, budget=0.5, clock=clock)
    steps = runner.run()
    assert steps == sim.num_steps == 40  # one prefill, 39 decodes
    assert shown[-1] == sim.num_steps           # the forced refresh at the end shows the last step
    assert len(shown) <= steps // 10 + 2       # 10 ms steps, 100 ms interval
    gaps = [b - a for a, b in zip(shown, shown[1:-1])]
    assert all(gap >= 10 for gap in gaps)


def test_slow_views_keep_within_their_budget():
    clock = Clock()
    sim = TimedSim(clock, 0.01, num_blocks=64, block_size=4)
    for k in range(4):
        sim.add(f"request number {k}", max_tokens=60, ignore_eos=True)

    def slow_refresh():
        clock.now += 0.05  # 5 steps' worth of drawing

    runner = LiveRunner(sim, slow_refresh, interval=0.0, budget=0.1, clock=clock)
    runner.run()
    assert runner.refreshes >= 3
    # the first refresh comes at once and the last is forced; every one between waits long enough
    # that drawing takes at most 10 % of the time
    assert runner.view_seconds - 2 * 0.05 <= 0.1 * (runner.engine_seconds + runner.view_seconds) + 1e-9


def test_one_slow_refresh_never_freezes_the_views_longer_than_max_gap():
    clock = Clock()
    sim = TimedSim(clock, 0.01, num_blocks=128, block_size=4)
    sim.add("a long request", max_tokens=300, ignore_eos=True)
    costs = iter([0.5] + [0.001] * 1000)  # a cold first refresh, then cheap ones
    shown = []

    def refresh():
        shown.append(clock.now)
        clock.now += next(costs)

    runner = LiveRunner(sim, refresh, interval=0.1, budget=0.03, max_gap=1.0, clock=clock)
    runner.run()
    assert shown[1] - shown[0] <= 0.5 + 1.0 + 0.01  # not 0.5 / 0.03 = 16 s later


def test_max_steps_and_bad_arguments():
    sim = Simulator(num_blocks=16, block_size=4)
    sim.add("hello", max_tokens=8)
    assert LiveRunner(sim).run(max_steps=2) == 2
    with pytest.raises(ValueError):
        LiveRunner(sim, budget=0)
