"""LiveRunner: scripted arrivals, and refreshes that never take more than their share of the time."""
import pytest

from blockviz import Simulator
from blockviz.demo.live import LiveRunner


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


def test_arrivals_come_one_every_n_steps_and_at_once_when_idle():
    sim = Simulator(num_blocks=16, block_size=4)
    runner = LiveRunner(sim)
    arrived = []
    runner.schedule([lambda k=k: arrived.append((k, sim.num_steps)) or sim.add(f"request {k}", max_tokens=8)
                     for k in range(3)], every=3)
    assert runner.has_work and not arrived
    runner.run()
    assert [k for k, _ in arrived] == [0, 1, 2]
    steps = [step for _, step in arrived]
    assert steps == [0, 3, 6]
    assert sim.is_finished() and not runner.has_work
    # when the engine runs dry before the next arrival is due, that request comes at once
    sim = Simulator(num_blocks=16, block_size=4)
    runner = LiveRunner(sim)
    arrived = []
    runner.schedule([lambda k=k: arrived.append(sim.num_steps) or sim.add(f"request {k}", max_tokens=1)
                     for k in range(2)], every=5)
    runner.run()
    assert arrived == [0, 1]


def test_every_zero_admits_all_at_once():
    sim = Simulator(num_blocks=16, block_size=4)
    runner = LiveRunner(sim)
    runner.schedule([lambda k=k: sim.add(f"r{k}", max_tokens=2) for k in range(3)], every=0)
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
