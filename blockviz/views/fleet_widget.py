"""The fleet view in JupyterLab: several instances of one Watch side by side, and where the
KV-aware router sends a prompt (views/fleet.py renders it; js/fleet.js places it). It redraws
through vllm_widget.Throttled, at most every `interval` seconds, as KV events arrive."""
from collections.abc import Mapping

import anywidget
import traitlets

from blockviz.views.assets import JS
from blockviz.views.fleet import render_fleet
from blockviz.views.vllm_widget import Throttled
from blockviz.vllm import router
from blockviz.vllm.watch import Watch


class FleetView(anywidget.AnyWidget):
    """FleetView(fleet.watch(), fleet.instances); `route(prompt)` shows where a prompt goes."""
    _esm = JS / "fleet.js"  # imports nothing: anywidget reads (and with ANYWIDGET_HMR=1 watches) the file
    _css = JS / "fleet.css"
    html = traitlets.Unicode("").tag(sync=True)
    step = traitlets.Int(-1).tag(sync=True)

    def __init__(self, watch: Watch, instances: Mapping[str, str] | None = None, lang: str = "en",
                 interval: float = 0.05, **kwargs):
        super().__init__(**kwargs)
        self.watch, self.lang = watch, lang
        self.instances = dict(instances) if instances is not None else None
        self.token_ids: list[int] | None = None
        self.load: dict[str, int] = {}
        self.turn: int | None = None
        self.choice: router.Choice | None = None
        self.timeline = Throttled(watch, interval)
        self.timeline.on_change(lambda cursor: self.refresh())
        self.refresh()

    def route(self, prompt: str | list[int], load: Mapping[str, int] | None = None,
              turn: int | None = None) -> router.Choice:
        """Show where `prompt` (text, or token ids) goes; `load`: requests per instance, for the tie
        rule; `turn`: also mark round-robin's pick for request number `turn`."""
        self.token_ids = self.watch.tokenizer.encode(prompt) if isinstance(prompt, str) else list(prompt)
        self.load, self.turn = dict(load or {}), turn
        self.refresh()
        return self.choice

    def refresh(self):
        watch = self.watch
        instances = self.instances if self.instances is not None else router.instances_of(watch)
        if watch.last_step < 0 or not instances:
            self.html = render_fleet(None, {}, lang=self.lang)
            return
        rr = None
        if self.token_ids is not None:
            self.choice = router.choose(watch, self.token_ids, instances, self.load)
            if self.turn is not None:
                rr = router.round_robin(watch, self.token_ids, self.turn, instances)
        picture = watch.picture(watch.last_step)   # the router decides on the caches as they are now
        sizes = watch.index.block_sizes
        size = next((sizes[source] for source in instances.values() if source in sizes), None)
        with self.hold_sync():
            self.html = render_fleet(picture, instances, self.choice, self.token_ids, round_robin=rr,
                                     block_size=size, decode=watch.decode, lang=self.lang)
            self.step = picture.step
