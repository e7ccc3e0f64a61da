"""Thin JupyterLab widgets over the pure renderers. Every view follows one timeline's cursor,
renders only when what it shows changed, and works alone or inside the Dashboard. The pool, the
largest view, sends the page only the blocks that changed."""
import io

import anywidget
import ipywidgets as w
import traitlets

from blockviz.i18n import t
from blockviz.views.render_metrics import MetricsIndex, render_metrics
from blockviz.views.pool_patch import pool_patch
from blockviz.views.render_pool import PoolPicture, pool_picture, render_block_detail, render_fold_detail
from blockviz.views.render_view import labels_of, render_view
from blockviz.views.trace_index import KVIndex, TraceIndex

# The pane and detail box every view draws into; a click on anything with data-block-id is sent back.
FRAME_JS = """
function frame(model, el) {
  const pane = document.createElement("div");
  pane.className = "bv-pane";
  const detail = document.createElement("div");
  detail.className = "bv-detail-box";
  el.append(pane, detail);
  const size = () => { pane.style.maxHeight = model.get("max_height") || "none"; };
  const drawDetail = () => { detail.innerHTML = model.get("detail"); };
  model.on("change:max_height", size);
  model.on("change:detail", drawDetail);
  pane.addEventListener("click", (e) => {
    const target = e.target.closest("[data-block-id]");
    if (target && +target.dataset.blockId >= 0) model.send({ block: +target.dataset.blockId });
  });
  size(); drawDetail();
  return pane;
}
"""
# Redraws the whole `svg` it is given.
VIEW_ESM = FRAME_JS + """
function render({ model, el }) {
  const pane = frame(model, el);
  const draw = () => { pane.innerHTML = model.get("svg"); };
  model.on("change:svg", draw);
  draw();
}
export default { render };
"""
# The pool: drawn whole from `full`, then changed cell by cell by each `patch` whose base is the
# version shown. Any other patch means this page missed one (it opened late): it asks for `full` again.
# Cells are keyed by their first block (data-block-id): one block, or a large pool's folded run.
POOL_ESM = FRAME_JS + """
function render({ model, el }) {
  const pane = frame(model, el);
  let shown = -1, svg, head, legend, group, cells;
  const setAttrs = (node, attrs) => {
    for (const name of node.getAttributeNames()) if (!(name in attrs)) node.removeAttribute(name);
    for (const [name, value] of Object.entries(attrs)) {
      if (node.getAttribute(name) !== value) node.setAttribute(name, value);
    }
  };
  const part = (name) => svg.querySelector(`:scope > [data-part="${name}"]`);
  const drawFull = () => {
    const full = model.get("full");
    if (!full.svg) return;
    pane.innerHTML = full.svg;
    svg = pane.firstElementChild;
    head = part("head"); legend = part("legend"); group = part("cells");
    cells = new Map([...group.children].map((node) => [+node.dataset.blockId, node]));
    shown = full.version;
  };
  const applyPatch = () => {
    const patch = model.get("patch");
    if (patch.base !== shown) {
      if (patch.version > shown) model.send({ full: true });
      return;
    }
    if (patch.root) setAttrs(svg, patch.root);
    if (patch.head !== undefined) head.innerHTML = patch.head;
    if (patch.legend !== undefined) legend.innerHTML = patch.legend;
    for (const key of patch.remove || []) { cells.get(key).remove(); cells.delete(key); }
    for (const [key, attrs, body] of patch.cells) {
      if (attrs) setAttrs(cells.get(key), attrs);
      if (body !== null) cells.get(key).innerHTML = body;
    }
    for (const [key, attrs, body, before] of patch.insert || []) {
      const node = document.createElementNS("http://www.w3.org/2000/svg", "g");
      setAttrs(node, attrs);
      node.innerHTML = body;
      group.insertBefore(node, before === null ? null : cells.get(before));
      cells.set(key, node);
    }
    shown = patch.version;
  };
  model.on("change:full", drawFull);
  model.on("change:patch", applyPatch);
  drawFull(); applyPatch();
}
export default { render };
"""
# The KV view: a K/V switch above the picture; the switch sets `kv`, Python redraws.
KV_ESM = FRAME_JS + """
function render({ model, el }) {
  const s = model.get("strings");
  const bar = document.createElement("div");
  bar.className = "bv-toggle"; bar.setAttribute("role", "group"); bar.setAttribute("aria-label", s.group);
  const buttons = ["k", "v"].map((kv) => {
    const b = document.createElement("button");
    b.textContent = s[kv]; b.dataset.kv = kv;
    b.addEventListener("click", () => { model.set("kv", kv); model.save_changes(); });
    bar.append(b);
    return b;
  });
  el.append(bar);
  const pane = frame(model, el);
  const draw = () => {
    pane.innerHTML = model.get("svg");
    for (const b of buttons) b.setAttribute("aria-pressed", String(b.dataset.kv === model.get("kv")));
  };
  model.on("change:svg change:kv", draw);
  draw();
}
export default { render };
"""
VIEW_CSS = """.bv-pane { overflow: auto; } .bv-pane svg { display: block; } .bv-detail-box:empty { display: none; }
.bv-toggle { display: flex; gap: 4px; padding: 2px 0 4px; }
.bv-toggle button[aria-pressed="true"] { font-weight: bold; outline: 2px solid var(--jp-brand-color1, #0b5cad); }"""


class TimelineView(anywidget.AnyWidget):
    """Base: follows one timeline's cursor. Subclasses say what to draw at a step (`draw`), which
    options change it (`options`) and how the page gets it (`publish`)."""
    _css = VIEW_CSS
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

    def draw(self, step: int):
        raise NotImplementedError

    def publish(self, drawn):
        raise NotImplementedError

    def refresh(self, force: bool = False):
        if not self.active:
            return
        # frames are immutable: the same frame object with the same options draws the same picture
        key = (id(self.timeline.frame()), self.options())
        if key != self._shown or force:
            self._shown = key
            self.publish(self.draw(self.timeline.cursor))

    def set_active(self, active: bool):
        self.active = active
        self.refresh()

    def _on_msg(self, _widget, content, _buffers):
        if "block" in content:
            for listener in self.block_listeners:
                listener(int(content["block"]))


class SvgView(TimelineView):
    """A view the page redraws whole from the `svg` it is sent."""
    _esm = VIEW_ESM
    svg = traitlets.Unicode("").tag(sync=True)

    def publish(self, drawn: str):
        self.svg = drawn


class PoolView(TimelineView):
    """Every physical block (a large pool folds runs of idle free blocks); click one for its
    details. The page gets the whole pool once (`full`), then after each move of the cursor only
    what changed (`patch`, see pool_patch.py), so a step in a large pool redraws the few blocks it changed."""
    _esm = POOL_ESM
    full = traitlets.Dict().tag(sync=True)   # {"version": n, "svg": the whole pool}
    patch = traitlets.Dict().tag(sync=True)  # {"base": n - 1, "version": n, **pool_patch(...)}

    def __init__(self, timeline, lang: str = "en", **kwargs):
        self.selected: int | None = None
        self.index = TraceIndex()
        self.picture: PoolPicture | None = None  # what the latest version shows
        self.version = 0
        super().__init__(timeline, lang, **kwargs)
        self.block_listeners.append(self.select)

    def options(self) -> tuple:
        return (self.selected, self.lang)

    def draw(self, step: int) -> PoolPicture:
        snapshot = self.timeline.snapshot(step)
        picture = pool_picture(snapshot, self.timeline.events(step), lang=self.lang, decode=self.timeline.decode,
                               selected=self.selected)
        if self.selected is None:
            self.detail = f'<span style="color:var(--jp-ui-font-color2,#555)">{t("dash.click", self.lang)}</span>'
            return picture
        first, last = picture.shown_in(self.selected)
        if first < last:  # the selected block is folded into a run: the run's facts
            self.detail = render_fold_detail(snapshot, first, last, lang=self.lang)
        else:
            self.index.update(self.timeline.frames)
            self.detail = render_block_detail(snapshot, self.selected, parents=self.index.parents, lang=self.lang,
                                              decode=self.timeline.decode)
        return picture

    def publish(self, drawn: PoolPicture):
        shown, self.picture = self.picture, drawn
        if shown is None:
            self.send_full()
        else:
            self.version += 1
            self.patch = {"base": self.version - 1, "version": self.version, **pool_patch(shown, drawn)}

    @property
    def svg(self) -> str:
        """The whole pool as the page shows it now (like every other view's `svg`)."""
        return self.picture.svg() if self.picture else ""

    def send_full(self):
        """The whole pool as a new version: every page redraws it, and later patches apply on top."""
        self.version += 1
        self.full = {"version": self.version, "svg": self.picture.svg()}

    def select(self, block_id: int | None):
        self.selected = None if block_id == self.selected else block_id  # a second click closes it
        self.refresh()

    def _on_msg(self, widget, content, buffers):
        if content.get("full"):
            self.send_full()
        super()._on_msg(widget, content, buffers)


class RequestView(SvgView):
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


class EventLog(SvgView):
    """This step's events, one narrated line each."""

    def __init__(self, timeline, lang: str = "en", max_height: str = "220px", **kwargs):
        super().__init__(timeline, lang, max_height=max_height, **kwargs)

    def options(self) -> tuple:
        return (self.lang,)

    def draw(self, step: int) -> str:
        return render_view(self.timeline, "events", step, lang=self.lang)


class KVView(SvgView):
    """The recorded K or V values (`kv`: "k" or "v", switched in the page) of one layer and head in
    their slots (an LLMEngine's kv_layer, kv_head)."""
    _esm = KV_ESM
    kv = traitlets.Enum(["k", "v"], "k").tag(sync=True)
    strings = traitlets.Dict().tag(sync=True)

    def __init__(self, timeline, lang: str = "en", kv: str = "k", **kwargs):
        snapshot = timeline.snapshot(0)
        self.kv_index = KVIndex(snapshot.num_blocks, snapshot.block_size)
        strings = {key: t(f"kv.switch.{key}", lang) for key in ("group", "k", "v")}
        super().__init__(timeline, lang, kv=kv, strings=strings, **kwargs)
        self.observe(lambda change: self.refresh(), "kv")

    def options(self) -> tuple:
        return (self.lang, self.kv)

    def draw(self, step: int) -> str:
        return render_view(self.timeline, "kv", step, lang=self.lang, kv_index=self.kv_index, kv=self.kv)


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
