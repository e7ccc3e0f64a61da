"""The class server on its own: the class side serves only the page, its files and the feed; the
publisher side needs the key; students' prompts are refused unless the teacher opened them, and
are length-limited and rate-limited per client."""
import http.client
import json
import time

import pytest

from blockviz.demo.classroom import MAX_PROMPT_CHARS, ClassServer, RateLimit
from blockviz.demo.link import ClassLink


@pytest.fixture
def server():
    server = ClassServer("en", "secret-key").start()
    yield server
    server.stop()


@pytest.fixture
def publisher(server):
    prompts = []
    link = ClassLink(server.publish_url, "secret-key", on_prompt=lambda text, client: prompts.append((text, client)))
    assert link.connected.wait(10)
    link.prompts = prompts
    yield link
    link.close()


def get(server, path: str, method: str = "GET", body: bytes | None = None, headers: dict | None = None):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request(method, path, body=body, headers=headers or {})
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response, data


def post_prompt(server, text, content_type="application/json"):
    response, data = get(server, "/prompt", "POST", json.dumps({"text": text}).encode(), {"Content-Type": content_type})
    return response.status, json.loads(data or b"{}").get("message", ""), response


def send_full(link, server, message: dict):
    """Publish a full message and wait until the server has it."""
    link.send(message)
    deadline = time.monotonic() + 10
    while server.hub.full is None or f'"version":{message["version"]},'.encode() not in server.hub.full:
        if time.monotonic() > deadline:
            pytest.fail("the server never got the message")
        time.sleep(0.01)


def message(kind: str, version: int, prompts: bool = False) -> dict:
    m = {"type": kind, "version": version, "step": version, "prompts": prompts, "pool": {} if kind == "patch" else "<svg/>",
         "parts": {"status": f"<b>v{version}</b>"}, "time": time.time()}
    if kind == "patch":
        m["base"] = version - 1
    return m


@pytest.mark.parametrize("method, path", [
    ("GET", "/api/kernels"), ("POST", "/api/kernels"), ("GET", "/api/terminals"), ("POST", "/api/terminals"),
    ("GET", "/api/contents"), ("GET", "/api/contents/demo.ipynb"), ("GET", "/lab"), ("GET", "/lab/tree/demo.ipynb"),
    ("GET", "/files/"), ("GET", "/files/blockviz-demo.json"), ("GET", "/tree"), ("GET", "/api/status"),
    ("GET", "/demo/static/../app.py"), ("GET", "/demo/static/%2e%2e/app.py"), ("GET", "/demo/static/dashboard.css"),
    ("GET", "/views/js/pool.js"), ("GET", "/demo/app.py"), ("GET", "/static/class.js"), ("GET", "/publish"),
    ("POST", "/"), ("PUT", "/events"), ("DELETE", "/"),
])
def test_the_class_side_refuses_everything_but_the_page(server, method, path):
    response, _ = get(server, path, method)
    assert not 200 <= response.status < 300, (method, path, response.status)


def test_the_page_its_files_and_security_headers(server):
    response, page = get(server, "/")
    assert response.status == 200 and b'src="demo/static/class.js"' in page
    assert "script-src 'self'" in response.getheader("Content-Security-Policy")
    for path in ("/demo/static/class.js", "/demo/static/class_page.js", "/demo/static/class.css",
                 "/views/js/pool_patch.js"):
        response, data = get(server, path)
        assert response.status == 200 and data, path
    response, js = get(server, "/demo/static/class_page.js")
    assert b'from "../../views/js/pool_patch.js"' in js  # the views' patch protocol, not a copy of it


def test_the_publisher_needs_the_key():
    server = ClassServer("en", "right").start()
    try:
        wrong = ClassLink(server.publish_url, "wrong")
        assert not wrong.connected.wait(1.5) and server.hub.publisher is None
        wrong.close()
        right = ClassLink(server.publish_url, "right")
        assert right.connected.wait(10)
        right.close()
    finally:
        server.stop()


def test_a_late_viewer_gets_the_last_full_message_then_the_patches(server, publisher):
    send_full(publisher, server, message("full", 1))
    for v in (2, 3):
        publisher.send(message("patch", v))
    publisher.flush()
    deadline = time.monotonic() + 10
    while len(server.hub.patches) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request("GET", "/events")
    response = conn.getresponse()
    assert response.getheader("Content-Type") == "text/event-stream"
    text = b""
    while text.count(b"event:") < 3:
        text += response.read1(65536)
    events = [block for block in text.decode().split("\n\n") if block.startswith("event:")]
    kinds = [e.split("\n")[0] for e in events]
    versions = [json.loads(e.split("\ndata: ")[1])["version"] for e in events]
    assert kinds == ["event: full", "event: patch", "event: patch"] and versions == [1, 2, 3]
    publisher.send(message("patch", 4))  # and then live
    while b'"version":4' not in text:
        text += response.read1(65536)
    conn.close()


def test_prompts_are_refused_until_the_teacher_opens_them(server, publisher):
    send_full(publisher, server, message("full", 1, prompts=False))
    assert post_prompt(server, "hello")[0] == 403
    send_full(publisher, server, message("full", 2, prompts=True))
    status, text, _ = post_prompt(server, "hello <b>class</b>")
    assert status == 202 and "queued" in text
    deadline = time.monotonic() + 10
    while not publisher.prompts and time.monotonic() < deadline:
        time.sleep(0.01)
    assert publisher.prompts == [("hello <b>class</b>", "127.0.0.1")]  # as typed: escaped where it is shown


def test_prompts_are_checked_and_rate_limited_per_client(server, publisher):
    send_full(publisher, server, message("full", 1, prompts=True))
    assert post_prompt(server, "x" * (MAX_PROMPT_CHARS + 1))[0] == 413
    assert post_prompt(server, "   ")[0] == 400
    assert post_prompt(server, "hi", content_type="text/plain")[0] == 415  # no cross-site form can send it
    statuses = [post_prompt(server, f"prompt {k}") for k in range(20)]  # a flood from one client
    codes = [s for s, _, _ in statuses]
    assert codes[:2] == [202, 202] and set(codes[2:]) == {429}
    assert int(statuses[-1][2].getheader("Retry-After")) > 0
    deadline = time.monotonic() + 10
    while len(publisher.prompts) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.1)
    assert len(publisher.prompts) == 2  # only the accepted ones reach the teacher


def test_the_rate_limit_refills_over_time():
    now = [0.0]
    limit = RateLimit(burst=2, every=10, clock=lambda: now[0])
    assert limit.take("a") == 0 and limit.take("a") == 0
    assert limit.take("a") == pytest.approx(10)
    assert limit.take("b") == 0  # per client
    now[0] = 5
    assert limit.take("a") == pytest.approx(5)
    now[0] = 10
    assert limit.take("a") == 0


def test_without_a_teacher_prompts_wait(server):
    server.hub.prompts_open = True
    assert post_prompt(server, "hello")[0] == 503


def test_a_page_opened_before_the_teacher_starts_hears_nothing_yet(server):
    """No picture was ever sent: no "not connected" event over an empty page; the page's own text
    says what it waits for (tests/demo/js: the teacher opening the lab and pressing Generate)."""
    assert server.hub.full is None and server.hub.publisher is None
    assert server.hub.backlog() == []


def test_viewers_hear_when_the_teacher_leaves(server):
    link = ClassLink(server.publish_url, "secret-key")
    assert link.connected.wait(10)
    send_full(link, server, message("full", 1))
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request("GET", "/events")
    response = conn.getresponse()
    text = b""
    while b"event: full" not in text:
        text += response.read1(65536)
    assert b"event: offline" not in text
    link.close()  # the kernel went away
    while b"event: offline" not in text:
        text += response.read1(65536)
    conn.close()
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)  # a page that opens now learns it at once
    conn.request("GET", "/events")
    late = b""
    response = conn.getresponse()
    while b"event: offline" not in late:
        late += response.read1(65536)
    assert late.index(b"event: full") < late.index(b"event: offline")
    conn.close()


def test_the_pages_words_are_escaped_into_its_template(monkeypatch):
    """Every text the template gets goes through esc, the one escaping path, and every placeholder
    in the template has a value (a missing one is an error, not a '$name' on screen)."""
    from blockviz.demo import classroom
    hostile = '<img src=x onerror="alert(1)">&'
    monkeypatch.setattr(classroom, "t", lambda key, lang, **kw: f"{key} {hostile}")
    page = classroom.page_html("en")
    assert "<img" not in page and page.count("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;") == len(classroom.PAGE_WORDS)
    assert "$" not in page
    assert classroom.fill("<p title=\"$a\">$b</p>", {"a": '"', "b": "<b>"}) == '<p title="&quot;">&lt;b&gt;</p>'
    with pytest.raises(KeyError):
        classroom.fill("<p>$missing</p>", {})


def test_the_limit_the_readme_states_two_prompts_at_once_then_one_every_20_seconds():
    """README: a device may send two prompts at once (2 s apart: both go through), then one every 20 s."""
    from pathlib import Path

    from blockviz.demo.classroom import PROMPT_BURST, PROMPT_EVERY
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert f"at most {MAX_PROMPT_CHARS} characters" in readme and "two at once" in readme
    assert (PROMPT_BURST, PROMPT_EVERY) == (2, 20.0) and "one every 20 s" in readme
    now = [0.0]
    limit = RateLimit(clock=lambda: now[0])
    assert limit.take("phone") == 0
    now[0] = 2.0
    assert limit.take("phone") == 0                        # the second, 2 s later: accepted
    now[0] = 4.0
    assert limit.take("phone") == pytest.approx(16)     # a third: refused, 0.2 of a prompt earned, 16 s to go
    now[0] = 4.0 + 20.0
    assert limit.take("phone") == 0                        # 20 s on: one more
