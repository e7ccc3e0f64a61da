"""The class server stays bounded whatever a client sends, on loopback: a body larger than its
handler takes is a 413 on every path before any of it is kept, deep JSON is a 400, a key that is not
ASCII a 403, garbage from the publisher is counted; the server answers normally afterwards."""
import json
import socket

import pytest

from blockviz.demo.bounded import MAX_JSON_DEPTH, MAX_PROMPT_BODY, shallow_json
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


def test_oversized_headers_close_the_connection(server):
    request = b"GET / HTTP/1.1\r\nHost: x\r\n" + b"X-Big: " + b"a" * (64 << 10) + b"\r\n\r\n"
    try:
        answer = raw(server.port, request)
    except ConnectionResetError:
        answer = b""
    assert not answer.startswith(b"HTTP/1.1 200")
    assert get(server, "/")[0].status == 200


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
