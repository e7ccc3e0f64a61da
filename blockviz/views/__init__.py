"""Views of a timeline: pure renderers (render_*.py), thin widgets over them, static exports.

>>> from blockviz import Simulator
>>> from blockviz.views import show
>>> sim = Simulator(num_blocks=8, block_size=4)
>>> _ = sim.add("hello world", max_tokens=3)
>>> show(sim)  # doctest: +SKIP
"""

from typing import Protocol, runtime_checkable

VIEWS = ("dashboard", "pool", "mapping", "chain", "kv", "events", "metrics", "player")  # of any engine timeline
TRAFFIC = "traffic"  # of a blockviz.traffic replay only
CAPACITY = "capacity"  # of a blockviz.traffic curve only


@runtime_checkable
class TrafficRun(Protocol):
    """A blockviz.traffic replay, told by what its views read (the traffic view its trace and hit rate
    over time, the others its engine's recording): show asks without importing traffic, so views
    depend on traffic only in the traffic view's own modules, and only once there is a replay."""
    trace: object
    engine: object

    def hit_rate_over_time(self, bin_s: float = 60): ...


def show(timeline, view: str = "dashboard", lang: str = "en", **options):
    """A widget for `view` over `timeline` (a Simulator, an LLM session, a loaded trace, or a
    blockviz.traffic replay: view "traffic" for its traffic, any other over its recording).
    `options` go to the view: `step` (default: the timeline's cursor) is the step it opens at and
    keeps until moved; `follow=True` moves it to each new step (default: on only when opened at the
    live end); e.g. show(llm, "kv", step=3, kv="v") for the V values at step 3. Every widget has
    `.step` and `.follow` (see stepping.py). show(curve, "capacity", model="qwen3-8b") sizes a cache
    over a blockviz.traffic curve (capacity_widget.py)."""
    if view == CAPACITY:
        from blockviz.views.capacity_widget import CapacityView
        return CapacityView(timeline, lang=lang, **options)
    if getattr(timeline, "meta", {}).get("kind") == "vllm":   # a blockviz.vllm watch: its own views
        if view not in ("dashboard", "forest"):
            raise ValueError(f"a vLLM watch shows its prefix cache as a forest of block chains (view 'forest'); "
                             f"its events cannot draw {view!r}")
        from blockviz.views.vllm_widget import WatchView
        return WatchView(timeline, lang=lang, **options)
    if isinstance(timeline, TrafficRun):
        from blockviz.views.traffic_view import TrafficView, recorded_engine
        if view == TRAFFIC:
            return TrafficView(timeline, lang=lang, **options)
        timeline = recorded_engine(timeline)
    elif view == TRAFFIC:
        raise ValueError("the traffic view draws a blockviz.traffic replay: show(traffic.replay(...), 'traffic')")
    from blockviz.views import dashboard, player, widgets  # ipywidgets only when a widget is asked for
    makers = {"dashboard": dashboard.Dashboard, "pool": widgets.PoolView, "mapping": widgets.MappingView,
              "chain": widgets.ChainView, "kv": widgets.KVView, "events": widgets.EventLog,
              "metrics": widgets.MetricsView, "player": player.Player}
    if view not in makers:
        raise ValueError(f"unknown view {view!r}; choose one of {VIEWS} (or {TRAFFIC!r} for a blockviz.traffic replay)")
    return makers[view](timeline, lang=lang, **options)
