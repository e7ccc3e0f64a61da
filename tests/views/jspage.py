"""The widgets' real front end in the Python tests: one node process (js/pages.mjs) renders widgets'
ES modules in jsdom and applies pool patches with js/pool_patch.js, so a test that needs what a page
shows runs the page's own code, never a Python copy of it. scripts/test.sh installs Debian's nodejs
and node-jsdom when node is missing; without them these tests skip."""
import json
import os
import shutil
import subprocess
from collections import deque
from contextlib import contextmanager
from itertools import count
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
JSDOM = Path("/usr/share/nodejs")  # where Debian's node-jsdom puts jsdom


def node_with_jsdom() -> tuple[str, dict]:
    """node and an environment in which it finds jsdom; skips the test when either is missing."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node not found (scripts/test.sh installs Debian's nodejs and node-jsdom)")
    env = {**os.environ, "NODE_PATH": os.pathsep.join(filter(None, [os.environ.get("NODE_PATH"), str(JSDOM)]))}
    if subprocess.run([node, "-e", "require('jsdom')"], env=env, capture_output=True).returncode != 0:
        pytest.skip("jsdom not found (scripts/test.sh installs Debian's node-jsdom)")
    return node, env


class Pages:
    """The node process. Every answer carries what the pages sent Python meanwhile; those are handed
    to their widgets in order, after the request that caused them (a widget's answer to one may
    change its traits, which go to the pages in turn)."""

    def __init__(self):
        node, env = node_with_jsdom()
        self.node = subprocess.Popen([node, str(HERE / "js" / "pages.mjs")], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env)
        self.views: dict[int, "Page"] = {}
        self.ids = count()
        self.inbox: deque = deque()
        self.delivering = False

    def call(self, command: str, **request) -> dict:
        self.node.stdin.write(json.dumps({"command": command, **request}) + "\n")
        self.node.stdin.flush()
        answer = json.loads(self.node.stdout.readline())
        if "error" in answer:
            raise AssertionError(f"the page failed: {answer['error']}")
        self.inbox.extend(answer.pop("out"))
        self.deliver()
        return answer

    def deliver(self):
        if self.delivering:  # the loop below is running, or held() holds them: they get there later
            return
        self.delivering = True
        try:
            while self.inbox:
                sent = self.inbox.popleft()
                self.views[sent["id"]].received(sent)
        finally:
            self.delivering = False

    @contextmanager
    def held(self):
        """What the pages send waits until the block ends: what a page shows before Python answers."""
        self.delivering = True
        try:
            yield
        finally:
            self.delivering = False
        self.deliver()

    def open(self, widget) -> "Page":
        return Page(self, widget)

    def patches(self, full: dict, patches: list[dict], expected: list[str]) -> dict:
        """A pool page drawn from `full` applies `patches` in order: {"results": applyPatch's answer to
        each, "pages": the page after each, "expected": each of `expected` as the page would show it}."""
        return self.call("patches", full=full, patches=patches, expected=expected)

    def parse(self, markup: str) -> str:
        """`markup` as a page serialises it once parsed (how a page's copy of it reads)."""
        return self.call("parse", markup=markup)["markup"]

    def step(self, channel: str, step: int) -> bool:
        """What a player's ◀ ▶ asks the views it drives: show `step` now, if every one can."""
        return self.call("step", channel=channel, step=step)["shown"]

    def close(self):
        for page in list(self.views.values()):
            page.close()
        self.node.stdin.close()
        self.node.wait(timeout=30)


class Page:
    """One view of a widget in the node page: it gets the widget's trait changes and custom messages
    as anywidget would deliver them, and what it sends goes to the widget."""

    def __init__(self, pages: Pages, widget):
        self.pages, self.widget, self.id = pages, widget, next(pages.ids)
        pages.views[self.id] = self
        state = widget.get_state()
        self.names = [name for name in state if name not in ("_esm", "_css")]
        widget.observe(self.changed, names=self.names)
        if not hasattr(widget, "pages"):  # the widget's custom messages reach every page showing it
            widget.pages = []
            kernel_send = widget.send

            def send(content, buffers=None):
                for page in widget.pages:
                    page.message(content)
                kernel_send(content, buffers)
            widget.send = send
        widget.pages.append(self)
        pages.call("open", id=self.id, esm=state["_esm"], state=state)

    def changed(self, change):
        name = change["name"]
        self.pages.call("change", id=self.id, name=name, value=self.widget.get_state(name)[name])

    def message(self, content: dict):
        self.pages.call("message", id=self.id, content=content)

    def received(self, sent: dict):
        if "msg" in sent:
            self.widget._handle_custom_msg(sent["msg"], [])
        else:
            self.widget.set_state(sent["state"])

    def html(self, selector: str | None = None) -> str | None:
        """The outer markup of the first element matching `selector` (default: the whole view)."""
        return self.pages.call("html", id=self.id, selector=selector)["html"]

    def attribute(self, selector: str, name: str) -> str | None:
        return self.pages.call("attribute", id=self.id, selector=selector, name=name)["value"]

    def click(self, selector: str):
        self.pages.call("click", id=self.id, selector=selector)

    def key(self, selector: str, key: str):
        self.pages.call("key", id=self.id, selector=selector, key=key)

    def close(self):
        self.widget.pages.remove(self)
        self.widget.unobserve(self.changed, names=self.names)
        self.pages.call("close", id=self.id)
        del self.pages.views[self.id]
