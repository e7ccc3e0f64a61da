"""The demo's front-end files in node's test runner with jsdom: the class page's script
(blockviz/demo/static/class_page.js) fed the messages a real engine's ClassFeed makes
(tests/demo/js/class_page.test.mjs), and the teacher's autorun extension (autorun.test.mjs)."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from blockviz import Simulator
from blockviz.demo.classroom import page_html
from blockviz.demo.feed import ClassFeed
from blockviz.demo.hits import HitLedger
from blockviz.demo.render import Status, Texts
from blockviz.states import classify
from blockviz.views.render_radix import preorder

HERE = Path(__file__).resolve().parent
JSDOM = Path("/usr/share/nodejs")  # where Debian's node-jsdom puts jsdom (tests/views/js/install_node.sh)


def fixture() -> dict:
    return {"page": page_html("en"), "messages": messages(), "sglang": messages("sglang")}


def messages(policy: str = "nano-vllm") -> list[dict]:
    """A run's class-page messages; under "sglang" each with the radix tree's node ids at its step."""
    sim = Simulator(num_blocks=16, block_size=4, policy=policy)
    sim.add("<b>bold</b> the cat sat on the mat", max_tokens=5)
    feed = ClassFeed(sim, "<h3>header</h3>", (), HitLedger(4, radix=policy == "sglang"), Texts(sim.decode), "en")
    messages = []
    while True:
        status = Status(sim.cursor, sim.last_step, 0, 0.0, 0, 0, 0, True)
        feed.prompts_open = sim.cursor >= 2
        message = feed.message(status, full=not messages)
        tree = sim.snapshot(sim.cursor).tree
        messages.append({"message": message, "states": [s.value for s in classify(sim.snapshot(sim.cursor))],
                         "nodes": None if tree is None else [node.id for node, _ in preorder(tree)]})
        if sim.cursor == 1:
            sim.add("the cat sat on a hat", max_tokens=4)
        if sim.is_finished():
            break
        sim.step()
    return messages


def test_the_demos_scripts_pass_their_tests_in_node(tmp_path):
    node = shutil.which("node")
    if node is None or not (JSDOM / "jsdom").is_dir():
        pytest.skip("node or jsdom not found (scripts/test.sh installs Debian's nodejs and node-jsdom)")
    path = tmp_path / "class.json"
    path.write_text(json.dumps(fixture()))
    env = {**os.environ, "BV_CLASS_FIXTURE": str(path),
           "NODE_PATH": os.pathsep.join(filter(None, [os.environ.get("NODE_PATH"), str(JSDOM)]))}
    done = subprocess.run([node, "--test", *sorted(map(str, (HERE / "js").glob("*.test.mjs")))], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert "# fail 0" in done.stdout and "# skipped 0" in done.stdout, done.stdout[-3000:]
