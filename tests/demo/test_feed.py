"""The teacher's dashboard feeding a real class server in this process: a full message first, then
patches whose versions chain; the teacher's switch opens students' prompts; a prompt posted to the
class side becomes a request on the engine's thread; the dashboard names the class page."""
import http.client
import json
import time

import pytest

from blockviz.demo.app import Demo
from blockviz.demo.classroom import ClassServer
from blockviz.demo.feed import KEYFRAME_EVERY
from blockviz.demo.link import PAGE_ENV, ClassLink
from blockviz.states import classify

from tests.views.svgtools import parse, with_attr


def wait_for(condition, what: str, seconds: float = 10):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.01)


@pytest.fixture
def wired(settings, monkeypatch):
    server = ClassServer("en", "k").start()
    monkeypatch.setenv(PAGE_ENV, f"http://127.0.0.1:{server.port}/")
    link = ClassLink(server.publish_url, "k")
    assert link.connected.wait(10)
    demo = Demo(settings, link=link)
    yield server, demo
    link.close()
    server.stop()


def messages(server) -> list[dict]:
    events = [server.hub.full, *server.hub.patches]
    return [json.loads(e.decode().split("\ndata: ", 1)[1]) for e in events]


def test_the_class_server_gets_a_full_message_then_chained_patches(wired):
    server, demo = wired
    assert f'href="http://127.0.0.1:{server.port}/"' in demo.header.value
    wait_for(lambda: server.hub.full is not None, "the first full message")
    while demo.runner.step():
        demo.runner.maybe_refresh(force=True)
    demo.link.flush()
    wait_for(lambda: messages(server)[-1]["step"] == demo.engine.last_step, "the last step")
    sent = messages(server)
    assert sent[0]["type"] == "full" and all(m["type"] == "patch" for m in sent[1:])
    assert [m["base"] for m in sent[1:]] == [m["version"] for m in sent[:-1]]  # each on the one before
    assert len(sent) <= KEYFRAME_EVERY
    first = parse(sent[0]["pool"])
    assert [c.get("data-state") for c in with_attr(first, "data-block-id")] == \
        [s.value for s in classify(demo.engine.snapshot(sent[0]["step"]))]


def post(server, text):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request("POST", "/prompt", json.dumps({"text": text}), {"Content-Type": "application/json"})
    status = conn.getresponse().status
    conn.close()
    return status


def test_the_teachers_switch_opens_prompts_and_one_becomes_a_request(wired):
    server, demo = wired
    wait_for(lambda: server.hub.full is not None, "the first full message")
    assert post(server, "t40 t41") == 403  # off by default
    demo.students_open.value = True
    demo.link.flush()
    wait_for(lambda: server.hub.prompts_open, "the server to hear the switch")
    before = len(demo.engine.seqs)
    assert post(server, "t40 t41") == 202
    wait_for(lambda: not demo._inbox.empty(), "the prompt to reach the kernel's side")
    assert len(demo.engine.seqs) == before  # not on the link's thread: it waits for the engine's
    demo.engine.notify()  # the engine's next change (a step, a refresh) takes it
    assert len(demo.engine.seqs) == before + 1 and demo._student_ids
    seq = demo.engine.seqs[demo._student_ids[0]]
    assert seq.prompt_token_ids[-2:] == [40, 41] and "127.0.0.1" in demo.student_list.value
