"""Request handling on the class page that stays bounded whatever a client sends: each handler says
how large a body it takes (most: none), a larger one is answered 413 and none of it kept (it is read
and dropped, 64 kB at a time, so that the client, still sending, sees the answer), headers past their
cap are answered 431 (BoundedHTTPServer), JSON is parsed only when shallow, and a handler's failure is
logged once per kind, not a traceback per request."""
import functools
import json
import logging

import tornado.web
from tornado import gen
from tornado.httpserver import HTTPServer
from tornado.iostream import IOStream, StreamClosedError

MAX_HEADER_BYTES = 16 << 10       # the whole header block, its blank line included; more is a 431
MAX_PROMPT_BODY = 4 << 10         # POST /prompt: {"text": up to 300 characters}, as JSON
MAX_DRAINED_BYTES = 256 << 20     # what tornado reads (and drops) of a body too large: more is a 400
MAX_JSON_DEPTH = 8
METHODS = ("get", "head", "post", "put", "patch", "delete", "options")
BODY_SECONDS = 30                 # a body that trickles in longer than this closes the connection

log = logging.getLogger("blockviz.demo")
logged: set[tuple[str, str]] = set()  # (handler, exception type) already logged with a traceback


@tornado.web.stream_request_body
class BoundedHandler(tornado.web.RequestHandler):
    """The body arrives in chunks (data_received): at most `max_body` bytes are kept in self.body."""
    max_body = 0

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in METHODS:  # each method a handler has answers 413 first when the body was too large
            method = getattr(cls, name)
            if method is not getattr(tornado.web.RequestHandler, name) and not hasattr(method, "refusing"):
                setattr(cls, name, refusing(method))

    def prepare(self):
        self.body = bytearray()
        self.too_large = False
        self.request.connection.set_max_body_size(MAX_DRAINED_BYTES)
        length = self.request.headers.get("Content-Length")
        if length is not None and int(length) > self.max_body:  # tornado refused a length that is not a number
            self.refuse()

    def data_received(self, chunk: bytes):
        if self.too_large:
            return  # dropped: only read so that the client gets its answer
        if len(self.body) + len(chunk) > self.max_body:
            self.refuse()
            return
        self.body += chunk

    def refuse(self):
        """Keep nothing more; the answer waits for the end of the body (tornado closes a connection
        answered early, and a client still sending would see a reset instead of the reason)."""
        self.too_large = True
        self.body = bytearray()

    def answer_too_large(self):
        self.set_status(413)
        self.finish({"message": f"a request body here is at most {self.max_body} bytes"})

    def log_exception(self, typ, value, tb):
        """Once per handler and kind of error with its traceback; after that, one line (log_function's)."""
        if isinstance(value, tornado.web.HTTPError):
            return
        kind = (type(self).__name__, typ.__name__)
        if kind not in logged:
            logged.add(kind)
            log.error("%s failed on %s (logged once per kind)", kind[0], self._request_summary(),
                      exc_info=(typ, value, tb))


def refusing(method):
    @functools.wraps(method)
    def call(self: BoundedHandler, *args, **kwargs):
        if self.too_large:
            return self.answer_too_large()
        return method(self, *args, **kwargs)
    call.refusing = True
    return call


class NotFound(BoundedHandler):
    """Any other path: 404, its body not read into memory either."""

    def get(self, *args):
        raise tornado.web.HTTPError(404)

    head = post = put = patch = delete = options = get


def shallow_json(data: bytes, max_depth: int = MAX_JSON_DEPTH):
    """json.loads, after checking that arrays and objects nest at most `max_depth` deep (a deep one
    would be a RecursionError in the parser): ValueError for either."""
    text = data.decode("utf-8")  # UnicodeDecodeError is a ValueError
    depth, in_string, escaped = 0, False, False
    for char in text:
        if in_string:
            escaped, in_string = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > max_depth:
                raise ValueError(f"JSON nested more than {max_depth} deep")
        elif char in "]}":
            depth -= 1
    return json.loads(text)


# --- headers ------------------------------------------------------------------------------

TOO_LARGE_HEADERS = (b"HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: application/json\r\n"
                     b"Connection: close\r\nContent-Length: %d\r\n\r\n%s")
DRAIN_BYTES = 1 << 16


class BoundedHTTPServer(HTTPServer):
    """tornado's HTTPServer, but a header block over max_header_size is answered 431 and the
    connection then closed: tornado reads headers with a bounded read that closes the connection when
    it overflows (no answer at all), so each connection's header reads go through capped_headers."""

    def handle_stream(self, stream: IOStream, address: tuple):
        stream.read_until_regex = capped_headers(stream)  # this connection's stream only
        super().handle_stream(stream, address)


def capped_headers(stream: IOStream):
    """The stream's read_until_regex, where a read with max_bytes (tornado's header read) ends either
    at its pattern or at max_bytes + 1 bytes without it, and the second is answered 431."""
    read = stream.read_until_regex

    def read_until_regex(regex: bytes, max_bytes: int | None = None):
        if max_bytes is None:
            return read(regex)
        # the pattern lazily from the start, else max_bytes + 1 bytes: the read never waits for more
        either = rb"\A[\s\S]*?(?:" + regex + rb")|\A[\s\S]{%d}" % (max_bytes + 1)
        return gen.convert_yielded(header_block(stream, read(either), max_bytes))

    return read_until_regex


async def header_block(stream: IOStream, reading, max_bytes: int) -> bytes:
    data = await reading
    if len(data) <= max_bytes:
        return data
    body = json.dumps({"message": f"request headers here are at most {max_bytes} bytes"}).encode()
    await stream.write(TOO_LARGE_HEADERS % (len(body), body))
    if not ends_headers(data):  # the client is still sending them: read the rest first, or it sees a reset
        try:
            await gen.with_timeout(stream.io_loop.time() + BODY_SECONDS, drain_headers(stream, data[-3:]),
                                   quiet_exceptions=StreamClosedError)
        except (TimeoutError, StreamClosedError):
            pass  # trickling or gone: close now
    stream.close()
    raise StreamClosedError()  # tornado's request loop ends quietly on a closed stream


def ends_headers(data: bytes) -> bool:
    """Whether `data` holds a header block's end (tornado's pattern \\r?\\n\\r?\\n), found by bytes search:
    a draining read looks at every byte."""
    return b"\n\n" in data or b"\n\r\n" in data


async def drain_headers(stream: IOStream, tail: bytes):
    """Read and drop the rest of a header block (`tail`: the end of what came before), up to its blank
    line or MAX_DRAINED_BYTES."""
    drained = 0
    while drained < MAX_DRAINED_BYTES:
        chunk = await stream.read_bytes(DRAIN_BYTES, partial=True)
        drained += len(chunk)
        if ends_headers(tail + chunk):
            return
        tail = (tail + chunk)[-3:]
