"""The class page's server, run by the `blockviz demo` process (tornado, which JupyterLab already
brings): read-only pages for any number of browsers, all fed by the one engine in the teacher's kernel.

    class side (--ip / --share)   GET /  the page · GET /demo/static/*, /views/js/pool_patch.js  its
                                  JS and CSS, by name · GET /events  the
                                  live feed (server-sent events) · POST /prompt  a student's prompt,
                                  only while the teacher allows it. Nothing else: no kernel, no
                                  files, no Jupyter API, no token of the teacher's.
    publisher (127.0.0.1 only)    a WebSocket the teacher's kernel connects to with a secret key; it
                                  sends the feed (feed.py) and receives the students' prompts.

The server keeps the last full message and the patches since, so a page that opens late is sent
those first and then follows live. A viewer too slow to keep up is dropped; its browser reconnects.
"""
import asyncio
import hmac
import json
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from string import Template

import tornado.web
import tornado.websocket
from tornado.iostream import StreamClosedError
from tornado.netutil import bind_sockets

from blockviz.demo.bounded import (BODY_SECONDS, MAX_HEADER_BYTES, MAX_PROMPT_BODY, BoundedHandler,
                                   BoundedHTTPServer, NotFound, log, shallow_json)
from blockviz.i18n import t
from blockviz.markup import esc

STATIC = Path(__file__).parent / "static"
VIEWS_JS = Path(__file__).resolve().parents[1] / "views" / "js"  # pool_patch.js: the views' patch protocol
MAX_PROMPT_CHARS = 300
PROMPT_BURST, PROMPT_EVERY = 2, 20.0  # per client: 2 prompts at once, then one every 20 s
MAX_VIEWER_BACKLOG = 300              # messages waiting for one viewer before it is dropped
KEEPALIVE_SECONDS = 20                # an idle stream gets a comment this often, so networks keep it open
OFFLINE = b"event: offline\ndata: {}\n\n"  # the teacher's kernel went away (a restart, a crash)
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                               "img-src 'self' data:; frame-ancestors 'none'; form-action 'none'",
    "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}


class RateLimit:
    """A token bucket per client: `burst` at once, then one per `every` seconds."""

    def __init__(self, burst: int = PROMPT_BURST, every: float = PROMPT_EVERY, clock=time.monotonic):
        self.burst, self.every, self.clock = burst, every, clock
        self.buckets: dict[str, tuple[float, float]] = {}  # client -> (tokens, when)

    def take(self, client: str) -> float:
        """0 if the client may go on now (one token taken), else the seconds to wait."""
        now = self.clock()
        tokens, when = self.buckets.get(client, (self.burst, now))
        tokens = min(self.burst, tokens + (now - when) / self.every)
        if tokens < 1:
            self.buckets[client] = (tokens, now)
            return (1 - tokens) * self.every
        self.buckets[client] = (tokens - 1, now)
        if len(self.buckets) > 10_000:  # forget the fullest buckets: they are back at the burst anyway
            self.buckets = dict(sorted(self.buckets.items(), key=lambda kv: kv[1][0])[:5_000])
        return 0.0


class ClassHub:
    """The state both sides share. Every method runs on the server's event loop."""

    def __init__(self, lang: str = "en", limit: RateLimit | None = None):
        self.lang = lang
        self.full: bytes | None = None   # the last full message, as a viewer's stream carries it
        self.patches: list[bytes] = []   # the patches after it
        self.viewers: set[asyncio.Queue] = set()
        self.publisher: "PublishHandler | None" = None
        self.prompts_open = False
        self.limit = limit or RateLimit()
        self.sent = 0                  # messages written to viewers
        self.garbage = 0               # messages from the publisher that were not a feed message

    def publish(self, text: str | bytes):
        try:
            message = json.loads(text) if isinstance(text, str) else None
        except (ValueError, RecursionError):
            message = None
        if not isinstance(message, dict):  # the kernel's link sends JSON objects only: count, never raise
            self.garbage += 1
            if self.garbage == 1:
                log.warning("the class server got a message that is not a JSON object (counted in hub.garbage)")
            return
        kind = message.get("type")
        if kind not in ("full", "patch") or (kind == "patch" and self.full is None):
            return  # a publisher always starts with a full message: anything else is stray
        event = f"event: {kind}\ndata: {text}\n\n".encode()  # encoded once, written to every viewer
        if kind == "full":
            self.full, self.patches = event, []
        else:
            self.patches.append(event)
        self.prompts_open = bool(message.get("prompts"))
        self.broadcast(event)

    def broadcast(self, event: bytes):
        for queue in list(self.viewers):
            if queue.qsize() >= MAX_VIEWER_BACKLOG:
                queue.put_nowait(None)  # too slow: drop it (its EventSource reconnects and starts afresh)
                self.viewers.discard(queue)
            else:
                queue.put_nowait(event)

    def backlog(self) -> list[bytes]:
        if self.full is None:
            return []  # nothing sent yet: the page's own text says what it waits for
        events = [self.full, *self.patches]
        return events if self.publisher is not None else events + [OFFLINE]


class ClassHandler(BoundedHandler):
    def initialize(self, hub: ClassHub):
        self.hub = hub

    def set_default_headers(self):
        for name, value in SECURITY_HEADERS.items():
            self.set_header(name, value)


class PageHandler(ClassHandler):
    def get(self):
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.write(page_html(self.hub.lang))


class EventsHandler(ClassHandler):
    """One server-sent-events stream per viewer: the backlog, then every message as it comes."""

    queue: asyncio.Queue | None = None

    async def get(self):
        self.set_header("Content-Type", "text/event-stream")
        self.set_header("X-Accel-Buffering", "no")
        queue = self.queue = asyncio.Queue()
        for item in self.hub.backlog():
            queue.put_nowait(item)
        self.hub.viewers.add(queue)
        try:
            self.write("retry: 1000\n\n")
            await self.flush()
            while True:
                try:
                    event = await asyncio.wait_for(queue.get(), KEEPALIVE_SECONDS)
                except asyncio.TimeoutError:
                    event = b":\n\n"  # a comment: EventSource ignores it
                if event is None:
                    return
                self.write(event)
                while not queue.empty():  # write what piled up in one flush
                    if (event := queue.get_nowait()) is None:
                        return
                    self.write(event)
                await self.flush()
                self.hub.sent += 1
        except StreamClosedError:
            pass
        finally:
            self.hub.viewers.discard(queue)

    def on_connection_close(self):
        if self.queue is not None:
            self.queue.put_nowait(None)  # wake the loop above: the viewer has gone


class PromptHandler(ClassHandler):
    """A student's prompt: only while the teacher allows it, at most MAX_PROMPT_CHARS, rate-limited
    per client, JSON only (a cross-site form cannot send it). Queued for the teacher's engine."""
    max_body = MAX_PROMPT_BODY

    def post(self):
        lang = self.hub.lang
        if not self.hub.prompts_open:
            return self.answer(403, t("class.prompt.closed", lang))
        if self.hub.publisher is None:
            return self.answer(503, t("class.prompt.offline", lang))
        if not self.request.headers.get("Content-Type", "").startswith("application/json"):
            return self.answer(415, "application/json only")
        try:
            text = shallow_json(bytes(self.body) or b"{}").get("text")
        except (ValueError, AttributeError):
            text = None
        if not isinstance(text, str) or not text.strip():
            return self.answer(400, t("class.prompt.empty", lang))
        if len(text) > MAX_PROMPT_CHARS:
            return self.answer(413, t("class.prompt.long", lang, n=MAX_PROMPT_CHARS))
        wait = self.hub.limit.take(self.request.remote_ip or "?")
        if wait:
            self.set_header("Retry-After", str(int(wait) + 1))
            return self.answer(429, t("class.prompt.wait", lang, s=int(wait) + 1))
        self.hub.publisher.write_message(json.dumps({"type": "prompt", "text": text,
                                                     "client": self.request.remote_ip or "?"}))
        return self.answer(202, t("class.prompt.queued", lang))

    def answer(self, code: int, message: str):
        self.set_status(code)
        self.write({"message": message})


class PublishHandler(tornado.websocket.WebSocketHandler):
    """The teacher's kernel: the one connection allowed to publish. A new one replaces the old
    (a restarted kernel); the key must match."""

    def initialize(self, hub: ClassHub, key: str):
        self.hub, self.key = hub, key

    async def get(self, *args, **kwargs):
        given = self.request.headers.get("X-Blockviz-Key", "").encode("utf-8", "replace")
        if not hmac.compare_digest(given, self.key.encode()):  # as bytes: a non-ASCII key is refused, not a 500
            self.set_status(403)
            return self.finish()
        return await super().get(*args, **kwargs)

    def open(self):
        if self.hub.publisher is not None:
            self.hub.publisher.close()
        self.hub.publisher = self

    def on_message(self, message):
        self.hub.publish(message)

    def on_close(self):
        if self.hub.publisher is self:
            self.hub.publisher = None
            self.hub.broadcast(OFFLINE)


PAGE = STATIC / "class.html"
PAGE_WORDS = ("title", "prompt_label", "prompt_send", "theme", "waiting", "offline")


def page_html(lang: str) -> str:
    """The class page (static/class.html) in `lang`: the parts are filled by class.js from the feed."""
    words = {word: t(f"class.{word}", lang) for word in PAGE_WORDS}
    return fill(PAGE.read_text(encoding="utf-8"),
                {**words, "lang": "zh-CN" if lang == "zh" else "en", "max_prompt_chars": MAX_PROMPT_CHARS})


def fill(template: str, values: Mapping[str, object]) -> str:
    """`template` with each $name replaced by its value as text (esc): a name without a value is an error."""
    return Template(template).substitute({name: esc(value) for name, value in values.items()})


def class_app(hub: ClassHub) -> tornado.web.Application:
    routes = [(r"/", PageHandler, {"hub": hub}), (r"/events", EventsHandler, {"hub": hub}),
              (r"/prompt", PromptHandler, {"hub": hub}),
              # the package's layout, so the modules' relative imports are the same on disk and here
              (r"/demo/static/(class\.js|class_page\.js|class\.css)", StaticHandler, {"path": str(STATIC)}),
              (r"/views/js/(pool_patch\.js)", StaticHandler, {"path": str(VIEWS_JS)})]
    return tornado.web.Application(routes, log_function=log_errors, default_handler_class=NotFound)


class StaticHandler(BoundedHandler, tornado.web.StaticFileHandler):
    """The page's own files and the views' pool patch module, nothing else (the routes name each file)."""

    def set_default_headers(self):
        for name, value in SECURITY_HEADERS.items():
            self.set_header(name, value)


def publisher_app(hub: ClassHub, key: str) -> tornado.web.Application:
    return tornado.web.Application([(r"/publish", PublishHandler, {"hub": hub, "key": key})], log_function=log_errors)


def log_errors(handler: tornado.web.RequestHandler):
    """Only the server's own errors reach the demo's terminal: a class probing URLs is not news."""
    if handler.get_status() >= 500:
        tornado.web.app_log.error("%d %s", handler.get_status(), handler._request_summary())


class ClassServer:
    """Both sides on their own event loop in a thread of the demo process (the main thread waits
    for JupyterLab). start() returns once both listen."""

    def __init__(self, lang: str, key: str, ip: str = "127.0.0.1", port: int = 0):
        self.hub = ClassHub(lang)
        self.key, self.ip, self.port = key, ip, port
        self.publish_port = 0
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stop: asyncio.Event | None = None

    @property
    def publish_url(self) -> str:
        return f"ws://127.0.0.1:{self.publish_port}/publish"

    def start(self, timeout: float = 10) -> "ClassServer":
        ready, failed = threading.Event(), []

        async def main():
            self._stop = asyncio.Event()
            try:
                class_sockets = bind_sockets(self.port, self.ip)
                publish_sockets = bind_sockets(0, "127.0.0.1")
            except OSError as e:
                failed.append(e)
                ready.set()
                return
            limits = {"max_header_size": MAX_HEADER_BYTES, "body_timeout": BODY_SECONDS}
            server = BoundedHTTPServer(class_app(self.hub), **limits)
            publisher = BoundedHTTPServer(publisher_app(self.hub, self.key), **limits)
            server.add_sockets(class_sockets)
            publisher.add_sockets(publish_sockets)
            self.port = class_sockets[0].getsockname()[1]
            self.publish_port = publish_sockets[0].getsockname()[1]
            ready.set()
            await self._stop.wait()
            server.stop()
            publisher.stop()

        def run():
            self.loop = asyncio.new_event_loop()
            self.loop.run_until_complete(main())
            self.loop.close()

        self._thread = threading.Thread(target=run, name="blockviz-class-server", daemon=True)
        self._thread.start()
        if not ready.wait(timeout):
            raise RuntimeError("the class server did not start")
        if failed:
            raise failed[0]
        return self

    def stop(self):
        if self.loop is not None and self._stop is not None and self._thread.is_alive():
            self.loop.call_soon_threadsafe(self._stop.set)
            self._thread.join(5)
