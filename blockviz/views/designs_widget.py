"""The designs view: show(prompts, "designs", num_blocks=..., block_size=...) puts nano-vllm and SGLang
side by side on the same requests (designs_after.compare): the table of what each hit, recomputed
and evicted per request (render_designs), and for the request selected each design's cache after it
(render_after). js/designs.js lays them out; choosing a row, the slider or ◀ ▶ sets `selected`.

nano-vllm's pool is sent as the pool view sends it (pool_patch.py): whole once, then what changed,
so moving from one request to the next in a GPU-sized pool redraws the blocks that changed; the
cells drawn are kept from one request to the next (pool_picture's `kept`)."""
import json
from collections import OrderedDict

import anywidget
import traitlets

from blockviz.designs_after import Comparison, compare
from blockviz.i18n import t
from blockviz.views.assets import JS, module
from blockviz.views.pool_patch import pool_patch
from blockviz.views.render_after import AfterPicture, render_after
from blockviz.views.render_designs import render_designs
from blockviz.views.render_pool import PoolPicture


RECENT = 8   # requests whose pictures are kept: going back and forth between them draws nothing again


class DesignsView(anywidget.AnyWidget):
    """DesignsView(prompts or a designs_after.Comparison, num_blocks=16, block_size=4, max_tokens=4,
    labels=None, selected=0, lang="en"); `selected` is the request shown."""
    _esm = module("pool_patch.js", "designs.js")
    _css = JS / "designs.css"
    table = traitlets.Unicode("").tag(sync=True)
    count = traitlets.Int(0).tag(sync=True)
    selected = traitlets.Int(0).tag(sync=True)
    summary = traitlets.Unicode("").tag(sync=True)
    full = traitlets.Dict().tag(sync=True)        # nano-vllm's pool: {"version": n, "svg": the whole pool}
    patch = traitlets.Unicode("{}").tag(sync=True)  # {"base": b, "version": n, **pool_patch(...)} as JSON text
    sglang = traitlets.Unicode("").tag(sync=True)   # SGLang's tree and token pool
    labels = traitlets.Dict({}).tag(sync=True)

    def __init__(self, requests: Comparison | list, num_blocks: int = 16, block_size: int = 4, max_tokens: int = 4,
                 labels: list[str] | None = None, selected: int = 0, lang: str = "en", **kwargs):
        self.comparison = requests if isinstance(requests, Comparison) else compare(
            list(requests), num_blocks, block_size, max_tokens, labels)
        if not len(self.comparison):
            raise ValueError("the designs view needs at least one request")
        self.lang = lang
        self.cells: dict = {}                     # pool cells drawn, reused where a block looks the same
        self.picture: PoolPicture | None = None   # the pool the page shows
        self.version = 0
        self.recent: OrderedDict[int, AfterPicture] = OrderedDict()
        super().__init__(**kwargs)
        with self.hold_sync():
            self.count = len(self.comparison)
            self.table = render_designs(self.comparison.served, self.comparison.labels, lang)
            self.labels = {"request": t("designs.view.request", lang), "previous": t("designs.view.previous", lang),
                           "next": t("designs.view.next", lang), "names": self.comparison.labels}
            self.selected = min(max(selected, 0), self.count - 1)
        self.observe(lambda _: self.refresh(), names=["selected"])
        self.on_msg(self.answer)
        self.refresh()

    def draw(self, i: int) -> AfterPicture:
        picture = self.recent.pop(i, None) or render_after(self.comparison, i, lang=self.lang, kept=self.cells)
        self.recent[i] = picture
        while len(self.recent) > RECENT:
            self.recent.popitem(last=False)
        return picture

    def refresh(self) -> None:
        i = min(max(self.selected, 0), self.count - 1)
        after = self.draw(i)
        with self.hold_sync():
            self.summary, self.sglang = after.summary, after.tree + after.pages
            self.show_pool(after.pool)

    def show_pool(self, new: PoolPicture) -> None:
        """Whole the first time, then the patch from the picture shown."""
        if self.picture is None:
            self.version += 1
            self.full = {"version": self.version, "svg": new.svg()}
        else:
            base, self.version = self.version, self.version + 1
            self.patch = json.dumps({"base": base, "version": self.version, **pool_patch(self.picture, new)})
        self.picture = new

    def answer(self, _widget, content: dict, _buffers) -> None:
        """A page that missed a patch (it opened late) asks for the pool whole."""
        if content.get("full") and self.picture is not None:
            self.full = {"version": self.version, "svg": self.picture.svg()}
