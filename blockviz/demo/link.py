"""The teacher's kernel's connection to the class server (classroom.py): a WebSocket on 127.0.0.1
with the demo's secret key, run by a thread of its own so that a slow network never holds up the
engine. send() only queues (the engine's thread encodes, the link's thread writes); students'
prompts come back to `on_prompt`, which the caller hands to the engine's thread. When the
connection drops (a server restart), the link reconnects and asks for a full message (`on_connect`)."""
import asyncio
import json
import os
import threading
from collections.abc import Callable

from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

URL_ENV, KEY_ENV = "BLOCKVIZ_CLASS_URL", "BLOCKVIZ_CLASS_KEY"  # set by `blockviz demo` for its kernel
PAGE_ENV = "BLOCKVIZ_CLASS_PAGE"  # the class page's URL, for the teacher's dashboard to show
RETRY_SECONDS = 1.0
MAX_QUEUED = 1000  # messages held while disconnected; past that the next connection starts with a full one


class ClassLink:

    def __init__(self, url: str, key: str, on_prompt: Callable[[str, str], None] = lambda text, client: None,
                 on_connect: Callable[[], None] = lambda: None):
        self.url, self.key = url, key
        self.on_prompt, self.on_connect = on_prompt, on_connect
        self.connected = threading.Event()
        self.sent = 0
        self._queue: asyncio.Queue | None = None
        self._loop = asyncio.new_event_loop()
        self._closing = False
        self._thread = threading.Thread(target=self._loop.run_forever, name="blockviz-class-link", daemon=True)
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._run(), self._loop)

    @classmethod
    def from_environment(cls, **callbacks) -> "ClassLink | None":
        url, key = os.environ.get(URL_ENV), os.environ.get(KEY_ENV)
        return cls(url, key, **callbacks) if url and key else None

    def send(self, message: dict):
        text = json.dumps(message, separators=(",", ":"))
        self._loop.call_soon_threadsafe(self._put, text)

    def _put(self, text: str):
        if self._queue is not None and self._queue.qsize() < MAX_QUEUED:
            self._queue.put_nowait(text)

    async def _run(self):
        self._queue = asyncio.Queue()
        while not self._closing:
            try:
                conn = await websocket_connect(HTTPRequest(self.url, headers={"X-Blockviz-Key": self.key}))
            except Exception:
                await asyncio.sleep(RETRY_SECONDS)
                continue
            while not self._queue.empty():  # stale: the server gets a fresh full message instead
                self._queue.get_nowait()
            self.connected.set()
            self.on_connect()
            reader = asyncio.ensure_future(self._read(conn))
            try:
                while not reader.done():
                    getter = asyncio.ensure_future(self._queue.get())
                    await asyncio.wait([getter, reader], return_when=asyncio.FIRST_COMPLETED)
                    if not getter.done():
                        getter.cancel()
                        break
                    await conn.write_message(getter.result())
                    self.sent += 1
            except Exception:
                pass
            finally:
                self.connected.clear()
                conn.close()
                reader.cancel()
            if not self._closing:
                await asyncio.sleep(RETRY_SECONDS)

    async def _read(self, conn):
        while (text := await conn.read_message()) is not None:
            try:
                message = json.loads(text)
            except ValueError:
                continue
            if message.get("type") == "prompt" and isinstance(message.get("text"), str):
                self.on_prompt(message["text"], str(message.get("client", "?")))

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until everything sent so far is written (tests, the benchmark)."""
        done = threading.Event()

        async def check():
            while self._queue is not None and not self._queue.empty() and self.connected.is_set():
                await asyncio.sleep(0.005)
            done.set()
        asyncio.run_coroutine_threadsafe(check(), self._loop)
        return done.wait(timeout)

    def close(self):
        self._closing = True

        async def stop():
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self._loop.stop()
        asyncio.run_coroutine_threadsafe(stop(), self._loop)
        self._thread.join(5)
