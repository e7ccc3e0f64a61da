"""Random requests to the class page on loopback (methods, paths, headers, bodies of any size up to
past the caps, JSON of any shape and depth): always an answer below 500 with the body kept
bounded, and the page served as before afterwards. And shallow_json on any text: a value or a
ValueError, never a RecursionError."""
import http.client
import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from blockviz.demo.bounded import MAX_PROMPT_BODY, shallow_json
from blockviz.demo.classroom import ClassServer
from blockviz.demo.link import ClassLink
from tests.fuzz.strategies import JSON

PATHS = st.sampled_from(["/", "/events", "/prompt", "/demo/static/class.js", "/views/js/pool_patch.js",
                         "/nowhere", "/prompt/", "/../etc/passwd", "/%00", "/demo/static/../classroom.py"])
METHODS = st.sampled_from(["GET", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"])
CONTENT_TYPES = st.sampled_from(["application/json", "text/plain", "application/json; charset=utf-8", ""])


def nested(depth: int) -> bytes:
    return b'{"text": ' + b"[" * depth + b"1" + b"]" * depth + b"}"


BODIES = st.one_of(
    st.binary(max_size=256),
    st.builds(lambda v: json.dumps({"text": v}).encode(), JSON),
    st.builds(lambda v: json.dumps(v).encode(), JSON),
    st.builds(nested, st.integers(0, 3000)),
    st.builds(lambda n: b"x" * n, st.sampled_from([MAX_PROMPT_BODY - 1, MAX_PROMPT_BODY, MAX_PROMPT_BODY + 1,
                                                   1 << 20])))


@pytest.fixture(scope="module")
def server():
    server = ClassServer("en", "fuzz-key").start()
    link = ClassLink(server.publish_url, "fuzz-key", on_prompt=lambda text, client: None)
    assert link.connected.wait(10)
    link.send({"type": "full", "version": 1, "step": 1, "prompts": True, "pool": "<svg/>", "parts": {}, "time": 0})
    yield server
    link.close()
    server.stop()


def request(server, method: str, path: str, body, headers: dict, chunked: bool = False) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request(method, path, body=body, headers=headers, encode_chunked=chunked)
        response = conn.getresponse()
        data = response.read() if path != "/events" or response.status != 200 else b""
        return response.status, data
    finally:
        conn.close()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(method=METHODS, path=PATHS, body=BODIES, content_type=CONTENT_TYPES, chunked=st.booleans())
def test_any_request_gets_an_answer_below_500(server, method, path, body, content_type, chunked):
    headers = {"Content-Type": content_type} if content_type else {}
    server.hub.limit.buckets.clear()  # the rate limit is tested elsewhere: here every prompt is judged
    if chunked and body:
        status, data = request(server, method, path, iter([body[i:i + 4096] for i in range(0, len(body), 4096)]),
                               headers, chunked=True)
    else:
        status, data = request(server, method, path, body, headers)
    assert 200 <= status < 500, (status, data[:200])
    if status == 413:
        assert b"at most" in data
    assert request(server, "GET", "/", None, {})[0] == 200


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=200), st.builds(lambda v: json.dumps(v), JSON),
                 st.builds(lambda d: "[" * d + "]" * d, st.integers(0, 5000))))
def test_shallow_json_is_a_value_or_a_value_error(text):
    try:
        value = shallow_json(text.encode("utf-8", "surrogatepass"))
    except ValueError:
        return
    assert json.dumps(value) == json.dumps(json.loads(text))  # (NaN is not equal to itself)
