"""Thin JupyterLab widgets over the pure renderers. Every view follows one timeline's cursor,
renders only when what it shows changed, and works alone or inside the Dashboard."""
import io

import anywidget
import ipywidgets as w
import traitlets

from blockviz.i18n import t
from blockviz.views.render_metrics import MetricsIndex, render_metrics
from blockviz.views.render_pool import render_block_detail
from blockviz.views.render_view import labels_of, render_view
from blockviz.views.trace_index import KVIndex, TraceIndex

# Draws the `svg` (and `detail` HTML) it is given; a click on anything with data-block-id is sent back.
VIEW_ESM = """
function render({ model, el }) {
  const pane = document.createElement("div");
  pane.className = "bv-pane";
  const detail = document.createElement("div");
  detail.className = "bv-detail-box";
  el.append(pane, detail);
  const draw = () => {
    pane.innerHTML = model.get("svg");
    pane.style.maxHeight = model.get("max_height") || "none";
  };
  const drawDetail = () => { detail.innerHTML = model.get("detail"); };
  model.on("change:svg", draw);
  model.on("change:max_height", draw);
  model.on("change:detail", drawDetail);
  pane.addEventListener("click", (e) => {
    const target = e.target.closest("[data-block-id]");
    if (target && +target.dataset.blockId >= 0) model.send({ block: +target.dataset.blockId });
  });
  draw(); drawDetail();
}
export default { render };
"""
VIEW_CSS = ".bv-pane { overflow: auto; } .bv-pane svg { display: block; } .bv-detail-box:empty { display: none; }"


class TimelineView(anywidget.AnyWidget):
    """Base: subclasses say what to draw at a step (`draw`) and which options change it (`options`)."""
    _esm = VIEW_ESM
    _css = VIEW_CSS
    svg = traitlets.Unicode("").tag(sync=True)
    detail = traitlets.Unicode("").tag(sync=True)
    max_height = traitlets.Unicode("").tag(sync=True)

    def __init__(self, timeline, lang: str = "en", max_height: str = "", active: bool = True, **kwargs):
        super().__init__(max_height=max_height, **kwargs)
        self.timeline = timeline
        self.lang = lang
        self.active = active     # an inactive view (a hidden tab) skips work until shown again
        self._shown = None
        self.block_listeners = []  # called with a block id when one is clicked
        timeline.on_change(lambda cursor: self.refresh())
        self.on_msg(self._on_msg)
        self.refresh()

    def options(self) -> tuple:
        return ()

    def draw(self, step: int) -> str:
        raise NotImplementedError

    def refresh(self, force: bool = False):
        if not self.active:
            return
        # frames are immutable: the same frame object with the same options draws the same picture
        key = (id(self.timeline.frame()), self.options())
        if key != self._shown or force:
            self._shown = key
            self.svg = self.draw(self.timeline.cursor)

    def set_active(self, active: bool):
        self.active = active
        self.refresh()

    def _on_msg(self, _widget, content, _buffers):
        if "block" in content:
            for listener in self.block_listeners:
                listener(int(content["block"]))


class PoolView(TimelineView):
    """Every physical block; click one for its details."""

    def __init__(self, timeline, lang: str = "en", **kwargs):
        self.selected: int | None = None
        self.index = TraceIndex()
        super().__init__(timeline, lang, **kwargs)
        self.block_listeners.append(self.select)

    def options(self) -> tuple:
        return (self.selected, self.lang)

    def draw(self, step: int) -> str:
        if self.selected is not None:
            self.index.update(self.timeline.frames)
            self.detail = render_block_detail(self.timeline.snapshot(step), self.selected, parents=self.index.parents,
                                              lang=self.lang, decode=self.timeline.decode)
        else:
            self.detail = f'<span style="color:var(--jp-ui-font-color2,#555)">{t("dash.click", self.lang)}</span>'
        return render_view(self.timeline, "pool", step, lang=self.lang, selected=self.selected)

    def select(self, block_id: int | None):
        self.selected = None if block_id == self.selected else block_id  # a second click closes it
        self.refresh()


class RequestView(TimelineView):
    """A view of one request: `seq_id`, or (None) the request scheduled at the cursor."""
    view = ""

    def __init__(self, timeline, seq_id: int | None = None, lang: str = "en", **kwargs):
        self.seq_id = seq_id
        self.index = TraceIndex()
        super().__init__(timeline, lang, **kwargs)

    def options(self) -> tuple:
        return (self.seq_id, self.lang)

    def show_request(self, seq_id: int | None):
        self.seq_id = seq_id
        self.refresh()

    def draw(self, step: int) -> str:
        return render_view(self.timeline, self.view, step, lang=self.lang, seq_id=self.seq_id, index=self.index)


class MappingView(RequestView):
    """block_table -> slot mapping of one request."""
    view = "mapping"


class ChainView(RequestView):
    """Prefix hash chain of one request, as can_allocate last probed it."""
    view = "chain"


class EventLog(TimelineView):
    """This step's events, one narrated line each."""

    def __init__(self, timeline, lang: str = "en", max_height: str = "220px", **kwargs):
        super().__init__(timeline, lang, max_height=max_height, **kwargs)

    def options(self) -> tuple:
        return (self.lang,)

    def draw(self, step: int) -> str:
        return render_view(self.timeline, "events", step, lang=self.lang)


class KVView(TimelineView):
    """The recorded K values of one layer and head in their slots (an LLMEngine's kv_layer, kv_head)."""

    def __init__(self, timeline, lang: str = "en", **kwargs):
        snapshot = timeline.snapshot(0)
        self.kv_index = KVIndex(snapshot.num_blocks, snapshot.block_size)
        super().__init__(timeline, lang, **kwargs)

    def options(self) -> tuple:
        return (self.lang,)

    def draw(self, step: int) -> str:
        return render_view(self.timeline, "kv", step, lang=self.lang, kv_index=self.kv_index)


class MetricsView(w.Image):
    """Blocks per state, hit rate, preemptions and wasted slots over the whole timeline, with the
    cursor marked. A matplotlib redraw costs ~100 ms, so inside the Dashboard it draws only while shown."""

    def __init__(self, timeline, lang: str = "en", active: bool = True, **kwargs):
        super().__init__(format="png", **kwargs)
        self.timeline, self.lang = timeline, lang
        self.active = active
        self.rows = MetricsIndex()
        self._shown = None
        timeline.on_change(lambda cursor: self.refresh())
        self.refresh()

    def refresh(self):
        if not self.active:
            return
        key = (self.timeline.cursor, len(self.timeline.frames), id(self.timeline.frames[-1]), self.lang)
        if key == self._shown:
            return
        self._shown = key
        fig = render_metrics(self.rows.update(self.timeline.frames), cursor=self.timeline.cursor, lang=self.lang)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=80)
        self.value = buffer.getvalue()

    def set_active(self, active: bool):
        self.active = active
        self.refresh()


class RequestPicker(w.Dropdown):
    """Chooses the request that per-request views show; its options follow the requests that arrive."""
    AUTO = -1  # show the request scheduled at the cursor

    def __init__(self, timeline, views: list[RequestView], lang: str = "en"):
        self.timeline, self.views, self.lang = timeline, views, lang
        super().__init__(description=t("dash.request", lang), options=self._choices(), value=self.AUTO)
        self.observe(self._pick, "value")
        timeline.on_change(lambda cursor: self._update())

    def _choices(self) -> list[tuple[str, int]]:
        return [(t("dash.auto", self.lang), self.AUTO)] + [(label, seq_id) for seq_id, label in labels_of(self.timeline).items()]

    def _pick(self, change):
        for view in self.views:
            view.show_request(None if change["new"] == self.AUTO else change["new"])

    def _update(self):
        choices = self._choices()
        if len(choices) != len(self.options):
            value = self.value
            self.options = choices
            self.value = value
