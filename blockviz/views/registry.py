"""Every view, in one table: its name, the widget that shows it, and what draws it as a still picture.
show(), render_view and the exports read this table, so a new view is one row here (and its
renderer and widget).

A widget is named "module:Class" under blockviz.views and imported only when shown: the widgets
bring ipywidgets, which renderers and exports do without, and the traffic view brings
blockviz.traffic, which showing an engine does without."""
from dataclasses import dataclass
from importlib import import_module


@dataclass(frozen=True)
class View:
    name: str
    widget: str                 # "module:Class" under blockviz.views
    picture: str | None = None  # "svg": render_view draws it at any step; "figure": a matplotlib figure; None: none


# of any engine timeline: a Simulator, an LLM session, a loaded trace, a traffic replay's recording
ENGINE_VIEWS = (
    View("dashboard", "dashboard:Dashboard"),
    View("pool", "widgets:PoolView", "svg"),
    View("mapping", "widgets:MappingView", "svg"),
    View("chain", "widgets:ChainView", "svg"),
    View("kv", "widgets:KVView", "svg"),
    View("events", "widgets:EventLog", "svg"),
    View("metrics", "widgets:MetricsView", "figure"),
    View("player", "player:Player"),
)
TRAFFIC_VIEWS = (View("traffic", "traffic_view:TrafficView"),)    # of a blockviz.traffic replay
CAPACITY_VIEWS = (View("capacity", "capacity_widget:CapacityView"),)   # of a blockviz.traffic curve
RADIX_VIEWS = (View("radix", "radix_widget:radix_view"),)   # of a timeline under policy "sglang" (a maker: stepped or live)
DESIGNS_VIEWS = (View("designs", "designs_widget:DesignsView"),)   # of requests (or a designs_after.Comparison)
WATCH_VIEWS = (View("dashboard", "vllm_widget:WatchView"),   # of a blockviz.vllm watch
               View("forest", "vllm_widget:WatchView"))

VIEWS = tuple(v.name for v in ENGINE_VIEWS)
SVG_VIEWS = tuple(v.name for v in ENGINE_VIEWS if v.picture == "svg")
EXPORTED = tuple(v.name for v in ENGINE_VIEWS if v.picture)   # export_svg, export_png and export_gif draw these


def widget(views: tuple[View, ...], name: str) -> type | None:
    """The widget class that shows view `name` among `views`; None for a name not among them."""
    found = next((v for v in views if v.name == name), None)
    if found is None:
        return None
    module, _, cls = found.widget.partition(":")
    return getattr(import_module(f"blockviz.views.{module}"), cls)
