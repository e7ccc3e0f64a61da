"""The scenarios the browser test's notebook runs; the test rebuilds them to know what to expect."""
import json
import tempfile
from pathlib import Path

from blockviz import Simulator
from blockviz.recording.io import load_trace
from blockviz.recording.timeline import Timeline


def scenario(num_blocks: int) -> Simulator:
    sim = Simulator(num_blocks=num_blocks, block_size=4)
    sim.add("the cat sat on the mat", max_tokens=6)
    sim.add("the cat sat on a hat", max_tokens=6)
    for i in range(num_blocks // 16):  # fill a big pool with unrelated requests
        sim.add(f"request {i:04d} shares nothing", max_tokens=8)
    return sim


def kv_timeline() -> Timeline:
    """A recorded run with made-up K and V values written in its first step (no model needed)."""
    sim = scenario(12)
    sim.run(1)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "trace.jsonl"
        sim.save(path)
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        lines[1]["payload"] = {"kv": {"layer": 0, "head": 0, "slots": [0, 1, 2, 3],
                                      "k": [[1.0, -1.0]] * 4, "v": [[-1.0, 1.0]] * 4}}
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        return load_trace(path)
