"""The class server stays bounded whatever a client sends, on loopback: a body larger than its
handler takes is a 413 on every path before any of it is kept, headers past their cap a 431, deep JSON
a 400, a key that is not ASCII a 403, garbage from the publisher is counted; the server answers
normally afterwards."""
import json
import re
import socket

import pytest

from blockviz.demo.bounded import MAX_HEADER_BYTES, MAX_JSON_DEPTH, MAX_PROMPT_BODY, shallow_json
from tests.demo.test_classroom import get, post_prompt, publisher, send_full, server, message  # noqa: F401

BIG = 20 << 20  # 20 MB: the server must not keep it


@pytest.mark.parametrize("method, path", [("GET", "/"), ("GET", "/events"), ("POST", "/prompt"),
                                          ("GET", "/demo/static/class.js"), ("GET", "/nowhere"),
                                          ("POST", "/nowhere")])
def test_a_large_body_is_refused_on_every_path(server, method, path):
    response, data = get(server, path, method, b"x" * BIG, {"Content-Type": "application/json"})
    assert response.status == 413 and b"at most" in data
    assert get(server, "/")[0].status == 200


def test_a_chunked_body_is_cut_as_it_comes(server):
    chunks = (b"y" * (1 << 16) for _ in range(64))  # 4 MB with no Content-Length
    conn = __import__("http.client").client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request("POST", "/prompt", body=chunks, headers={"Content-Type": "application/json"}, encode_chunked=True)
    assert conn.getresponse().status == 413
    conn.close()


def test_a_prompt_body_within_the_cap_still_works(server, publisher):
    send_full(publisher, server, message("full", 1, prompts=True))
    assert post_prompt(server, "hello")[0] == 202
    assert len(json.dumps({"text": "字" * 300}).encode()) < MAX_PROMPT_BODY  # the longest prompt fits


def test_deep_json_is_a_400(server, publisher):
    send_full(publisher, server, message("full", 1, prompts=True))
    for body in (b"[" * 2000 + b"]" * 2000, b'{"text": ' + b"[" * 100 + b"]" * 100 + b"}", b"\xff\xfe"):
        response, data = get(server, "/prompt", "POST", body, {"Content-Type": "application/json"})
        assert response.status == 400, body[:20]


def test_shallow_json_counts_brackets_outside_strings_only():
    assert shallow_json(json.dumps({"text": "[" * 100}).encode()) == {"text": "[" * 100}
    assert shallow_json(b'{"a": "\\"[[[[[[[[[[["}') == {"a": '"' + "[" * 11}
    nested = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert shallow_json(nested.encode()) is not None
    with pytest.raises(ValueError):
        shallow_json(("[" + nested + "]").encode())


def raw(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(request)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
            if b"\r\n\r\n" in data:
                break
        return data


def test_a_key_that_is_not_ascii_is_a_403(server):
    request = (b"GET /publish HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
               + "X-Blockviz-Key: ключ\r\n\r\n".encode())
    assert raw(server.publish_port, request).startswith(b"HTTP/1.1 403")


def until_closed(s: socket.socket) -> bytes:
    data = b""
    while chunk := s.recv(65536):
        data += chunk
    return data


def with_headers(size: int, path: bytes = b"/") -> bytes:
    """A GET whose header block, its blank line included, is `size` bytes."""
    head = b"GET " + path + b" HTTP/1.1\r\nHost: x\r\nX-Pad: "
    return head + b"a" * (size - len(head) - 4) + b"\r\n\r\n"


@pytest.mark.parametrize("size", [MAX_HEADER_BYTES + 1, 64 << 10, 4 << 20])
def test_oversized_headers_are_a_431_then_the_connection_closes(server, size):
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(with_headers(size))  # all of it: the server reads the rest before it closes, so no reset
        answer = until_closed(s)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n") and b"Connection: close" in head
    assert json.loads(body) == {"message": f"request headers here are at most {MAX_HEADER_BYTES} bytes"}
    assert get(server, "/")[0].status == 200


def test_headers_at_the_cap_are_served_and_a_kept_alive_connection_is_capped_too(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(with_headers(MAX_HEADER_BYTES, b"/demo/static/class.css"))
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += s.recv(65536)
        assert answer.startswith(b"HTTP/1.1 200")
        length = int(re.search(rb"Content-Length: (\d+)", answer).group(1))
        while len(answer.partition(b"\r\n\r\n")[2]) < length:
            answer += s.recv(65536)
        s.sendall(with_headers(MAX_HEADER_BYTES + 1))  # the next request on the same connection
        assert until_closed(s).startswith(b"HTTP/1.1 431")


def test_the_publisher_answers_oversized_headers_431_too(server):
    with socket.create_connection(("127.0.0.1", server.publish_port), timeout=10) as s:
        s.sendall(with_headers(64 << 10, b"/publish"))
        assert until_closed(s).startswith(b"HTTP/1.1 431")


@pytest.mark.parametrize("junk", ["not json", "[1, 2]", "null", "\"text\"", "[" * 100_000, "x" * (5 << 20)])
def test_garbage_from_the_publisher_is_counted(server, junk):
    hub = server.hub
    before = hub.garbage
    server.loop.call_soon_threadsafe(hub.publish, junk)
    import time
    deadline = time.monotonic() + 10
    while hub.garbage == before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert hub.garbage == before + 1 and hub.full is None
