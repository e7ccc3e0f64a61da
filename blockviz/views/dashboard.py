"""Every view over one timeline: player, pool with block details, event log, and tabs for the
per-request views, the KV pool and the metrics. Hidden tabs do no work until shown."""
import ipywidgets as w

from blockviz.i18n import t
from blockviz.views.player import Player
from blockviz.views.render_view import has_kv
from blockviz.views.widgets import ChainView, EventLog, KVView, MappingView, MetricsView, PoolView, RequestPicker


class Dashboard(w.VBox):

    def __init__(self, timeline, lang: str = "en"):
        self.timeline = timeline
        self.player = Player(timeline, lang)
        self.pool = PoolView(timeline, lang, max_height="640px")
        self.events = EventLog(timeline, lang)
        self.mapping = MappingView(timeline, lang=lang)
        self.chain = ChainView(timeline, lang=lang, active=False)
        self.picker = RequestPicker(timeline, [self.mapping, self.chain], lang)
        tabs = [(self.mapping, "dash.mapping"), (self.chain, "dash.chain")]
        if has_kv(timeline):
            self.kv = KVView(timeline, lang=lang, active=False)
            tabs.append((self.kv, "dash.kv"))
        self.metrics = MetricsView(timeline, lang, active=False)
        tabs.append((self.metrics, "dash.metrics"))
        self.tab_views = [view for view, _ in tabs]
        self.tabs = w.Tab(children=self.tab_views, titles=[t(key, lang) for _, key in tabs])
        self.tabs.observe(lambda change: self._show_tab(change["new"]), "selected_index")
        for view in (self.mapping, self.chain):  # a block clicked anywhere opens in the pool
            view.block_listeners.append(self.pool.select)
        self._show_tab(0)
        super().__init__([self.player, self.pool, self.events, self.picker, self.tabs])
        self.add_class("bv-dashboard")

    def _show_tab(self, selected: int | None):
        for k, view in enumerate(self.tab_views):
            view.set_active(k == selected)
