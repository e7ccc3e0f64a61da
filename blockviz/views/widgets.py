"""Thin JupyterLab widgets over the pure renderers. Every view shows its own step (see
stepping.py), renders only when what it shows changed, and works alone (with a bar showing its
step and follow toggle) or driven by a player, as in the Dashboard. The pool, the largest view,
sends the page only the blocks that changed, and under a player the patches of the steps around the
one shown (ahead.py). Their JavaScript and CSS are the files in js/."""
import io
import json
from collections import OrderedDict

import anywidget
import ipywidgets as w
import traitlets

from blockviz.i18n import t
from blockviz.views.ahead import Ahead
from blockviz.views.assets import STYLES, module
from blockviz.views.render_metrics import MetricsIndex, render_metrics
from blockviz.views.pool_patch import pool_patch
from blockviz.views.render_pool import PoolPicture, pool_picture, render_block_detail
from blockviz.views.render_view import labels_of, render_view
from blockviz.views.stepping import Stepped, opening
from blockviz.views.recording_index import KVIndex, RecordingIndex

RECENT = 16  # pool pictures a PoolView keeps (about 0.4 MB each at 1024 blocks)


class TimelineView(anywidget.AnyWidget, Stepped):
    """Base: shows `step` of one timeline. Subclasses say what to draw at a step (`draw`), which
    options change it (`options`) and how the page gets it (`publish`)."""
    _css = STYLES
    detail = traitlets.Unicode("").tag(sync=True)
    max_height = traitlets.Unicode("").tag(sync=True)
    controls = traitlets.Bool(True).tag(sync=True)  # the step and follow bar; off under a player
    caption = traitlets.Unicode("").tag(sync=True)  # the bar's "step N"
    strings = traitlets.Dict().tag(sync=True)

    def __init__(self, timeline, lang: str = "en", step: int | None = None, follow: bool | None = None,
                 max_height: str = "", active: bool = True, strings: dict | None = None, **kwargs):
        step, follow = opening(timeline, step, follow)
        strings = {"follow": t("player.follow", lang)} | (strings or {})
        super().__init__(step=step, follow=follow, max_height=max_height, strings=strings, **kwargs)
        self.lang = lang
        self.active = active     # an inactive view (a hidden tab) skips work until shown again
        self._shown = None
        self.block_listeners = []  # called with a block id when one is clicked
        self.start(timeline)
        self.on_msg(self._on_msg)
        self.show_step()

    def options(self) -> tuple:
        return ()

    def draw(self, step: int):
        raise NotImplementedError

    def publish(self, drawn):
        raise NotImplementedError

    def show_step(self):
        if self.controls:
            self.caption = t("view.step", self.lang, step=self.step)
        self.refresh()

    def refresh(self, force: bool = False):
        if not self.active:
            return
        # frames are immutable: the same frame object with the same options draws the same picture
        key = (self.step, id(self.timeline.frame(self.step)), self.options())
        if key != self._shown or force:
            self._shown = key
            self.publish(self.draw(self.step))

    def set_active(self, active: bool):
        self.active = active
        self.refresh()

    def _on_msg(self, _widget, content, _buffers):
        if "block" in content:
            for listener in self.block_listeners:
                listener(int(content["block"]))


class SvgView(TimelineView):
    """A view the page redraws whole from the `svg` it is sent."""
    _esm = module("frame.js", "view.js")
    svg = traitlets.Unicode("").tag(sync=True)

    def publish(self, drawn: str):
        self.svg = drawn


class PoolView(TimelineView):
    """Every physical block (a large pool folds runs of idle free or cached-free blocks); click one
    for its details (a click on a run: its first block, shown alone). The page gets the whole pool once (`full`), then after each move only what changed
    (`patch`, see pool_patch.py and js/pool_patch.js), so a step in a large pool redraws the few
    blocks it changed. Driven by a player (`channel` set), it also sends the patches of the steps
    around the one shown (`ahead`, see ahead.py), so the page steps at once on ◀ ▶."""
    _esm = module("frame.js", "pool_patch.js", "step_ahead.js", "pool.js")
    full = traitlets.Dict().tag(sync=True)   # {"version": n, "svg": the whole pool}
    # {"base": b, "version": n, **pool_patch(...)} as JSON text: a patch of a large step lists
    # hundreds of cells, which ipywidgets would walk looking for binary buffers
    patch = traitlets.Unicode("{}").tag(sync=True)
    ahead = traitlets.Unicode("[]").tag(sync=True)  # JSON list of patches, each with its "step"
    channel = traitlets.Unicode("").tag(sync=True)  # the player's that drives it ("": none)
    columns = traitlets.Int(0).tag(sync=True)  # cells per row the page's pane has room for (0: the default)

    def __init__(self, timeline, lang: str = "en", **kwargs):
        self.selected: int | None = None
        self.index = RecordingIndex()
        self.picture: PoolPicture | None = None  # what the latest version shows
        self.recent: OrderedDict[tuple, tuple] = OrderedDict()  # (step, selected, lang) -> (frame, picture)
        self.cells: dict = {}  # the cells last drawn, reused where a block (or a run) looks the same
        self.version = 0       # of the picture shown
        self.versions = 0      # given out: to the pictures shown and those sent ahead
        self.sent_ahead = Ahead()
        super().__init__(timeline, lang, **kwargs)
        self.block_listeners.append(self.select)
        self.observe(self.rewrap, "columns")

    def rewrap(self, _change=None):
        """The page's pane changed width: the cells flow in its new number of columns, drawn whole."""
        self.recent.clear()
        self.cells.clear()
        self.picture = None  # publish then sends the picture whole
        self.refresh(force=True)
        self.send_ahead()

    def new_version(self) -> int:
        self.versions += 1
        return self.versions

    def options(self) -> tuple:
        return (self.selected, self.lang, self.columns)

    def picture_at(self, step: int) -> PoolPicture:
        """The picture of `step`, kept for the last RECENT steps shown: stepping back and forth over
        them draws nothing again (a frame replaced since, like step 0 while requests arrive, is redrawn)."""
        frame, key = self.timeline.frame(step), (step, self.selected, self.lang)
        kept = self.recent.pop(key, None)
        picture = kept[1] if kept and kept[0] is frame else pool_picture(
            frame.snapshot, frame.events, lang=self.lang, decode=self.timeline.decode, selected=self.selected,
            kept=self.cells, columns=self.columns or None)
        self.recent[key] = (frame, picture)
        while len(self.recent) > RECENT:
            self.recent.popitem(last=False)
        return picture

    def draw(self, step: int) -> PoolPicture:
        snapshot = self.timeline.snapshot(step)
        picture = self.picture_at(step)
        if self.selected is None:
            self.detail = f'<span style="color:var(--jp-ui-font-color2,#555)">{t("dash.click", self.lang)}</span>'
            return picture
        # the selected block is never folded (a click on a run selects its first block): its own facts
        self.index.update(self.timeline.frames)
        self.detail = render_block_detail(snapshot, self.selected, parents=self.index.parents, lang=self.lang,
                                          decode=self.timeline.decode)
        return picture

    def publish(self, drawn: PoolPicture):
        shown, self.picture = self.picture, drawn
        if shown is None:
            self.send_full()
            return
        sent = self.sent_ahead.taken(self.version, self.step, drawn)
        if sent is not None:  # the same patch the page may have applied already, for the pool's other pages
            self.version, self.patch = sent.version, sent.text
            return
        base, self.version = self.version, self.new_version()
        self.patch = json.dumps({"base": base, "version": self.version, **pool_patch(shown, drawn)},
                                ensure_ascii=False, separators=(",", ":"))

    def send_ahead(self):
        """The patches of the steps around the one shown, chained from its picture (see ahead.py).
        The player calls this once every pane shows its new step, so it delays none of them."""
        self.refresh()  # new frames: the player may hear of them before this view does
        if self.active and self.picture is not None and self.channel:
            self.ahead = self.sent_ahead.around(self.timeline, self.step, self.version, self.picture, self.options(),
                                                self.picture_at, self.new_version)

    @property
    def svg(self) -> str:
        """The whole pool as the page shows it now (like every other view's `svg`)."""
        return self.picture.svg() if self.picture else ""

    def send_full(self):
        """The whole pool as a new version: every page redraws it, and later patches apply on top."""
        self.version = self.new_version()
        self.full = {"version": self.version, "svg": self.picture.svg()}

    def select(self, block_id: int | None):
        self.selected = None if block_id == self.selected else block_id  # a second click closes it
        self.send_ahead()  # the new picture first, then the steps around it with the block outlined

    def _on_msg(self, widget, content, buffers):
        if content.get("full"):
            self.send_full()
            self.send_ahead()  # chained from the new version
        super()._on_msg(widget, content, buffers)


class RequestView(SvgView):
    """A view of one request: `seq_id`, or (None) the request scheduled at the step shown."""
    view = ""

    def __init__(self, timeline, seq_id: int | None = None, lang: str = "en", **kwargs):
        self.seq_id = seq_id
        self.index = RecordingIndex()
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

    def options(self) -> tuple:
        return (self.lang,)

    def draw(self, step: int) -> str:
        return render_view(self.timeline, "events", step, lang=self.lang)


class KVView(SvgView):
    """The recorded K or V values (`kv`: "k" or "v", switched in the page) of one layer and head in
    their slots (an LLMEngine's kv_layer, kv_head)."""
    _esm = module("frame.js", "kv.js")
    kv = traitlets.Enum(["k", "v"], "k").tag(sync=True)

    def __init__(self, timeline, lang: str = "en", kv: str = "k", **kwargs):
        snapshot = timeline.snapshot(timeline.first_step)
        self.kv_index = KVIndex(snapshot.num_blocks, snapshot.block_size)
        strings = {key: t(f"kv.switch.{key}", lang) for key in ("group", "k", "v")}
        super().__init__(timeline, lang, kv=kv, strings=strings, **kwargs)
        self.observe(lambda change: self.refresh(), "kv")

    def options(self) -> tuple:
        return (self.lang, self.kv)

    def draw(self, step: int) -> str:
        return render_view(self.timeline, "kv", step, lang=self.lang, kv_index=self.kv_index, kv=self.kv)


class MetricsView(w.Image, Stepped):
    """Blocks per state, hit rate, preemptions and wasted slots over the whole timeline, with the
    step shown marked. A matplotlib redraw costs ~100 ms, so inside the Dashboard it draws only while shown."""

    def __init__(self, timeline, lang: str = "en", step: int | None = None, follow: bool | None = None,
                 active: bool = True, **kwargs):
        step, follow = opening(timeline, step, follow)
        super().__init__(format="png", step=step, follow=follow, **kwargs)
        self.lang = lang
        self.active = active
        self.rows = MetricsIndex()
        self._shown = None
        self.start(timeline)
        self.refresh()

    def show_step(self):
        self.refresh()

    def refresh(self):
        if not self.active:
            return
        key = (self.step, len(self.timeline.frames), id(self.timeline.frames[-1]), self.lang)
        if key == self._shown:
            return
        self._shown = key
        fig = render_metrics(self.rows.update(self.timeline.frames), cursor=self.step, lang=self.lang)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=80)
        self.value = buffer.getvalue()

    def set_active(self, active: bool):
        self.active = active
        self.refresh()


class RequestPicker(w.Dropdown):
    """Chooses the request that per-request views show; its options follow the requests that arrive."""
    AUTO = -1  # show the request scheduled at the step shown

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
