"""The front-end modules' own tests (tests/views/js/*.test.mjs), run by node's test runner from the
one pytest command, with pictures and patches of real engine runs for the pool's patch protocol and
an HTML player exported from one.
scripts/test.sh installs Debian's nodejs and node-jsdom when node is missing."""
import json
import subprocess
from pathlib import Path

from blockviz import Simulator
from blockviz.views.export import export_html
from blockviz.views.pool_patch import pool_patch
from blockviz.views.render_pool import pool_picture

from conftest import build_gpu_sized
from jspage import node_with_jsdom

HERE = Path(__file__).resolve().parent


def runs() -> list[dict]:
    """Each run: the first picture, then a patch and the picture it must give, for every move
    (forward through every step, then jumps back and forth)."""
    small = Simulator(num_blocks=12, block_size=4)
    small.add("the cat sat on the mat", max_tokens=6)
    small.add("the cat sat on a hat", max_tokens=6)
    small.run()
    out = []
    for name, sim in (("12 blocks", small), ("65 536 blocks, folded runs", build_gpu_sized(65536))):
        moves = [*range(sim.last_step + 1), 2, sim.last_step, 0, 3]
        shown = pool_picture(sim.snapshot(moves[0]), sim.events(moves[0]))
        steps = []
        for version, step in enumerate(moves[1:], start=2):
            new = pool_picture(sim.snapshot(step), sim.events(step), selected=1 if step == 3 else None)
            steps.append({"patch": {"base": version - 1, "version": version, **pool_patch(shown, new)}, "svg": new.svg()})
            shown = new
        out.append({"name": name, "full": {"version": 1, "svg": pool_picture(sim.snapshot(0), sim.events(0)).svg()},
                    "steps": steps})
    return out


def exported() -> Simulator:
    """A run to export as an HTML player: two requests sharing a prefix, a dozen steps."""
    sim = Simulator(num_blocks=12, block_size=4)
    sim.add("the cat sat on the mat", max_tokens=4)
    sim.add("the cat sat on a hat", max_tokens=4)
    sim.run()
    return sim


def test_javascript_modules_pass_their_tests_in_node(tmp_path):
    node, env = node_with_jsdom()
    fixture = tmp_path / "pool.json"
    fixture.write_text(json.dumps(runs()))
    env["BV_POOL_FIXTURE"] = str(fixture)
    env["BV_EXPORT_FIXTURE"] = str(export_html(exported(), tmp_path / "player.html", views=("pool", "events")))
    done = subprocess.run([node, "--test", *sorted(map(str, (HERE / "js").glob("*.test.mjs")))], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert "# fail 0" in done.stdout and "# skipped 0" in done.stdout, done.stdout[-3000:]
