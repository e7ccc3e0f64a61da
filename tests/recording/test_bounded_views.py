"""Views of a session with a bounded history read only its window, and still draw every view."""
from blockviz.sim import Simulator
from blockviz.views.render_metrics import metrics_rows
from blockviz.views.render_view import render_view


def test_every_view_renders_inside_a_bounded_window():
    sim = Simulator(num_blocks=16, block_size=4, history=8, rule="count")
    for i in range(12):
        sim.add([1, 2, 3, 4, 5, i + 6], max_tokens=6)
        sim.run(max_steps=2)
    sim.run()
    assert sim.first_step > 0
    for view in ("pool", "mapping", "chain", "events"):
        for step in (sim.first_step, sim.last_step):
            assert render_view(sim, view, step).startswith("<svg")
    rows = metrics_rows(sim.frames)
    assert [r.step for r in rows] == list(range(sim.first_step, sim.last_step + 1))
