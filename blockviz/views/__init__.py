"""Views of a timeline: pure renderers (render_*.py), thin widgets over them, static exports.

>>> from blockviz import Simulator
>>> from blockviz.views import show
>>> sim = Simulator(num_blocks=8, block_size=4)
>>> _ = sim.add("hello world", max_tokens=3)
>>> show(sim)  # doctest: +SKIP
"""

from typing import Protocol, runtime_checkable

from blockviz.views import registry
from blockviz.views.registry import VIEWS

TRAFFIC = "traffic"  # of a blockviz.traffic replay only
CAPACITY = "capacity"  # of a blockviz.traffic curve only
DESIGNS = "designs"  # of requests: show(prompts, "designs", num_blocks=..., block_size=...)


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
    over a blockviz.traffic curve (capacity_widget.py). show(prompts, "designs", num_blocks=64) puts
    nano-vllm and SGLang side by side on the same requests (designs_widget.py). The views are
    registry.py's table."""
    if view == CAPACITY:
        return registry.widget(registry.CAPACITY_VIEWS, view)(timeline, lang=lang, **options)
    if view == "radix":   # SGLang's tree under policy "sglang", at a recorded step or live (radix_widget.py)
        return registry.widget(registry.RADIX_VIEWS, view)(timeline, lang=lang, **options)
    if view == DESIGNS:   # the same requests through nano-vllm and SGLang (designs_widget.py)
        return registry.widget(registry.DESIGNS_VIEWS, view)(timeline, lang=lang, **options)
    from blockviz.vllm.watch import Watch
    if isinstance(timeline, Watch):   # a blockviz.vllm watch: its own views
        maker = registry.widget(registry.WATCH_VIEWS, view)
        if maker is None:
            raise ValueError(f"a vLLM watch shows its prefix cache as a forest of block chains (view 'forest'); "
                             f"its events cannot draw {view!r}")
        return maker(timeline, lang=lang, **options)
    if isinstance(timeline, TrafficRun):
        if view == TRAFFIC:
            return registry.widget(registry.TRAFFIC_VIEWS, view)(timeline, lang=lang, **options)
        from blockviz.views.traffic_view import recorded_engine
        timeline = recorded_engine(timeline)
    elif view == TRAFFIC:
        raise ValueError("the traffic view draws a blockviz.traffic replay: show(traffic.replay(...), 'traffic')")
    maker = registry.widget(registry.ENGINE_VIEWS, view)   # ipywidgets only when a widget is asked for
    if maker is None:
        raise ValueError(f"unknown view {view!r}; choose one of {VIEWS} (or {TRAFFIC!r} for a blockviz.traffic replay)")
    return maker(timeline, lang=lang, **options)
