"""The designs view: show(prompts, "designs", num_blocks=..., block_size=...) puts nano-vllm and SGLang
side by side on the same requests (designs_after.compare): the table of what each hit, recomputed
and evicted per request (render_designs), and for the request selected each design's cache after it
(render_after). js/designs.js lays them out; choosing a row, the slider or ◀ ▶ sets `selected`.

nano-vllm's pool is sent as the pool view sends it (pool_patch.py): whole once, then what changed,
so moving from one request to the next in a GPU-sized pool redraws the blocks that changed; the
cells drawn are kept from one request to the next (pool_picture's `kept`).

As the pool view does under a player (ahead.py), after each move the widget also sends the requests
either side ahead (`ahead`: each one's pool patch from the picture shown, summary, tree and pages),
so the page shows them at once on ◀ ▶, then tells Python; Python's own patch for that move is the
one sent ahead (the same version), which a page that showed it already finds old and ignores.

In a kernel the neighbours are drawn after the move's own answer has gone out, in later turns of
the kernel's event loop, one a turn: a click that came meanwhile (a jump by a table row) is answered
first, and the neighbours of a request no longer shown are not drawn at all. Without a running loop
(a script, the tests) they are drawn at once. After the first neighbours, the last request is drawn
once more in a turn of its own, not sent (warm)."""
import asyncio
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
    # JSON list: {"request": j, "patch": the pool patch from the picture shown, "summary", "sglang"}
    ahead = traitlets.Unicode("[]").tag(sync=True)
    labels = traitlets.Dict({}).tag(sync=True)

    def __init__(self, requests: Comparison | list, num_blocks: int = 16, block_size: int = 4, max_tokens: int = 4,
                 labels: list[str] | None = None, selected: int = 0, lang: str = "en", **kwargs):
        if not isinstance(requests, (Comparison, list, tuple)):
            raise ValueError("the designs view serves requests through both designs: pass a list of prompts (text "
                             "or token ids), e.g. show(['the cat sat', 'the cat ran'], 'designs', num_blocks=64)")
        self.comparison = requests if isinstance(requests, Comparison) else compare(
            list(requests), num_blocks, block_size, max_tokens, labels)
        if not len(self.comparison):
            raise ValueError("the designs view needs at least one request")
        self.lang = lang
        self.cells: dict = {}                     # pool cells drawn, reused where a block looks the same
        self.edges: dict = {}                     # SGLang's edge labels drawn, reused (render_radix's labels)
        self.picture: PoolPicture | None = None   # the pool the page shows
        self.version = 0                          # of the pool picture shown
        self.versions = 0                         # given out: to the pictures shown and those sent ahead
        self.sent_ahead: dict[int, tuple[int, str, AfterPicture]] = {}   # request -> (version, patch JSON, picture)
        self.recent: OrderedDict[int, AfterPicture] = OrderedDict()
        self.moves = 0                            # refreshes so far: neighbours drawn for an older one are dropped
        self.drawing_ahead = False                # neighbours still to draw (a bench waits for them)
        self.warmed = False                       # the last request drawn once, in a kernel (warm)
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
        picture = self.recent.pop(i, None) or render_after(self.comparison, i, lang=self.lang, kept=self.cells,
                                                           labels=self.edges)
        self.recent[i] = picture
        while len(self.recent) > RECENT:
            self.recent.popitem(last=False)
        return picture

    def refresh(self) -> None:
        i = min(max(self.selected, 0), self.count - 1)
        sent = self.sent_ahead.get(i)
        after = sent[2] if sent else self.draw(i)
        with self.hold_sync():
            self.summary, self.sglang = after.summary, after.tree + after.pages
            if sent:   # the patch sent ahead, from the picture shown: a page that showed it ignores it now
                self.version, self.patch, self.picture = sent[0], sent[1], after.pool
            else:
                self.show_pool(after.pool)
        self.send_ahead(i)

    def new_version(self) -> int:
        self.versions += 1
        return self.versions

    def patch_to(self, new: PoolPicture) -> tuple[int, dict]:
        version = self.new_version()
        return version, {"base": self.version, "version": version, **pool_patch(self.picture, new)}

    def show_pool(self, new: PoolPicture) -> None:
        """Whole the first time, then the patch from the picture shown."""
        if self.picture is None:
            self.version = self.new_version()
            self.full = {"version": self.version, "svg": new.svg()}
        else:
            self.version, patch = self.patch_to(new)
            self.patch = json.dumps(patch)
        self.picture = new

    def send_ahead(self, i: int) -> None:
        """The requests either side of i, ready for the page to show at once: in a kernel, one a turn
        of its loop after this move's answer (see the module's doc), else now."""
        neighbours = [j for j in (i + 1, i - 1) if 0 <= j < self.count]
        self.sent_ahead, self.moves = {}, self.moves + 1   # those of the move before are no longer next to it
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None:
            self.sent_ahead = {j: self.draw_ahead(j) for j in neighbours}
            self.ahead = self.ahead_text()
            return
        move, self.drawing_ahead = self.moves, True

        def turn(left: list[int]) -> None:
            if move != self.moves:   # moved on meanwhile: that move sends its own
                return
            if left:
                self.sent_ahead[left[0]] = self.draw_ahead(left[0])
                loop.call_soon(turn, left[1:])
            else:
                self.ahead, self.drawing_ahead = self.ahead_text(), False
                if not self.warmed:
                    loop.call_soon(self.warm)
        loop.call_soon(turn, neighbours)

    def warm(self) -> None:
        """Draws the last request once, kept, not sent, after the first neighbours: its pool has a cell
        for every block a request allocated, and reading its step builds, once, what each recording
        needs to read a late step, so the first jump far from the request opened pays for neither
        (65,536 blocks, 300 requests: 0.65 s here; a first jump from request 0 to 197 took 674 ms of
        Python before, 47 ms after)."""
        self.warmed = True
        self.draw(self.count - 1)

    def draw_ahead(self, j: int) -> tuple[int, str, AfterPicture]:
        """Request j's pictures and its pool patch from the picture shown."""
        after = self.draw(j)
        version, patch = self.patch_to(after.pool)
        return version, json.dumps(patch), after

    def ahead_text(self) -> str:
        """The `ahead` list for the requests in sent_ahead (each patch as the JSON text kept for it,
        not serialized again)."""
        return "[" + ", ".join(f'{{"request": {j}, "patch": {patch}, "summary": {json.dumps(after.summary)}, '
                               f'"sglang": {json.dumps(after.tree + after.pages)}}}'
                               for j, (_, patch, after) in self.sent_ahead.items()) + "]"

    def answer(self, _widget, content: dict, _buffers) -> None:
        """A page that missed a patch (it opened late) asks for the pool whole."""
        if content.get("full") and self.picture is not None:
            self.full = {"version": self.version, "svg": self.picture.svg()}
