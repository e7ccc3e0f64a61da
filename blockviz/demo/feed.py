"""What the class page shows, as messages the engine's thread sends to the class server: a "full"
message (the whole pool picture and every part), then "patch" messages that carry only what changed
(the pool as pool_patch() of the previous picture, the parts whose HTML changed). Every
KEYFRAME_EVERY versions a full one again, so the server keeps a short backlog for a page that opens
late: the last full message and the patches after it.

Under policy "sglang" the "radix" part (SGLang's radix tree) stands where the hash chain does under
the others; each keeps the other empty. Like every part it is resent only when its picture changed."""
import time

from blockviz.demo.hits import HitLedger
from blockviz.demo.projector import chain_svg, events_svg, mapping_svg, projector_pool, radix_svg
from blockviz.demo.render import Status, Texts, requests_table_html, status_html, totals_html
from blockviz.views.pool_patch import pool_patch
from blockviz.views.render_pool import PoolPicture

KEYFRAME_EVERY = 100


class ClassFeed:

    def __init__(self, engine, header: str, system_ids: tuple[int, ...], ledger: HitLedger, texts: Texts, lang: str):
        self.engine = engine
        self.header = header
        self.system_ids = system_ids
        self.ledger = ledger
        self.texts = texts
        self.lang = lang
        self.version = 0
        self.picture: PoolPicture | None = None
        self.parts: dict[str, str] = {}
        self.prompts_open = False
        self.cells: dict = {}  # pool_picture's cells, kept from one step to the next
        self.chain: tuple = (None, "")  # (request, its admission) and its chain: drawn once per admission

    def parts_at(self, step: int, status: Status) -> dict[str, str]:
        s, lang = self.engine, self.lang
        snapshot, events = s.snapshot(step), s.events(step)
        pending = s.pending_arrivals if step == s.last_step else ()
        parts = {"header": self.header, "status": status_html(status, lang), "totals": totals_html(self.ledger, lang),
                 "table": requests_table_html(snapshot, s.labels, pending, self.ledger, self.texts,
                                              self.system_ids, lang),
                 "events": events_svg(events, s.labels, step, lang, s.decode)}
        latest = max((item for item in self.ledger.by_seq.items() if item[1].step <= step and item[0] in snapshot.seqs),
                     key=lambda item: (item[1].step, item[0]), default=None)
        tree = snapshot.tree
        if tree is not None:   # a radix tree decides: it has no hash chain to show
            parts["chain"], parts["radix"] = "", radix_svg(tree, step, lang, s.decode)
        else:
            if latest and self.chain[0] != latest:
                self.chain = (latest, chain_svg(snapshot, latest[0], latest[1], lang, s.decode))
            parts["chain"], parts["radix"] = (self.chain[1] if latest else ""), ""
        parts["mapping"] = mapping_svg(snapshot, latest[0], events, lang, s.decode) if latest else ""
        return parts

    def message(self, status: Status, full: bool = False) -> dict:
        """The next message, for the step the teacher's views show (status.step)."""
        self.ledger.update(self.engine)
        step = status.step
        picture = projector_pool(self.engine.snapshot(step), self.engine.events(step), lang=self.lang,
                                 decode=self.engine.decode, kept=self.cells)
        parts = self.parts_at(step, status)
        self.version += 1
        message = {"version": self.version, "step": step, "prompts": self.prompts_open}
        if full or self.picture is None or self.version % KEYFRAME_EVERY == 0:
            message.update(type="full", pool=picture.svg(), parts=parts)
        else:
            message.update(type="patch", base=self.version - 1, pool=pool_patch(self.picture, picture),
                           parts={k: v for k, v in parts.items() if self.parts.get(k) != v})
        self.picture, self.parts = picture, parts
        message["time"] = time.time()  # last, so a reader finds it at the end: how far behind a page is
        return message
