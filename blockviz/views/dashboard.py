"""Every view over one timeline: the player on top (it stays in view), then the pool beside the
selected pane (block_table → slot, hash chain, KV pool, SGLang's radix tree under policy "sglang",
events, metrics) when there is room, one above the other when not. The player drives every pane;
hidden tabs do no work until shown."""
import ipywidgets as w

from blockviz.i18n import t
from blockviz.views.player import Player
from blockviz.views.radix_widget import RadixView
from blockviz.views.render_view import has_kv
from blockviz.views.widgets import ChainView, EventLog, KVView, MappingView, MetricsView, PoolView, RequestPicker

PANE_HEIGHT = "75vh"  # each pane scrolls within this, so the player and the panes fit one screen


class Dashboard(w.VBox):

    def __init__(self, timeline, lang: str = "en", step: int | None = None, follow: bool | None = None):
        self.timeline = timeline
        self.player = Player(timeline, lang, step=step, follow=follow)
        at = {"step": self.player.step, "follow": False, "controls": False}
        self.pool = PoolView(timeline, lang, max_height=PANE_HEIGHT, **at)
        self.mapping = MappingView(timeline, lang=lang, max_height=PANE_HEIGHT, **at)
        self.chain = ChainView(timeline, lang=lang, active=False, max_height=PANE_HEIGHT, **at)
        self.picker = RequestPicker(timeline, [self.mapping, self.chain], lang)
        tabs = [(self.mapping, "dash.mapping"), (self.chain, "dash.chain")]
        if has_kv(timeline):
            self.kv = KVView(timeline, lang=lang, active=False, max_height=PANE_HEIGHT, **at)
            tabs.append((self.kv, "dash.kv"))
        if timeline.snapshot(self.player.step).tree is not None:   # policy "sglang": its radix tree at the step
            self.radix = RadixView(timeline, lang=lang, active=False, max_height=PANE_HEIGHT, **at)
            tabs.append((self.radix, "dash.radix"))
        self.events = EventLog(timeline, lang, active=False, max_height=PANE_HEIGHT, **at)
        tabs.append((self.events, "dash.events"))
        self.metrics = MetricsView(timeline, lang, active=False, step=self.player.step, follow=False)
        tabs.append((self.metrics, "dash.metrics"))
        self.tab_views = [view for view, _ in tabs]
        self.player.drive(self.pool, *self.tab_views)  # the pool first: its page redraws first
        self.tabs = w.Tab(children=self.tab_views, titles=[t(key, lang) for _, key in tabs])
        self.tabs.observe(lambda change: self._show_tab(change["new"]), "selected_index")
        for view in (self.mapping, self.chain):  # a block clicked anywhere opens in the pool
            view.block_listeners.append(self.pool.select)
        self._show_tab(0)
        side = w.VBox([self.picker, self.tabs])
        panes = w.Box([self.pool, side])
        panes.add_class("bv-panes")
        super().__init__([self.player, panes])
        self.add_class("bv-dashboard")

    @property
    def step(self) -> int:
        """The step every pane shows (the player's)."""
        return self.player.step

    @step.setter
    def step(self, step: int):
        self.player.seek(step)

    @property
    def follow(self) -> bool:
        return self.player.follow

    @follow.setter
    def follow(self, follow: bool):
        self.player.follow = follow

    def _show_tab(self, selected: int | None):
        for k, view in enumerate(self.tab_views):
            view.set_active(k == selected)
