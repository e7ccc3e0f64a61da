"""The scenarios the browser test's notebook runs; the test rebuilds them to know what to expect."""
from blockviz import Simulator
from blockviz.trace.io import trace_from_dict, trace_to_dict
from blockviz.trace.timeline import Timeline


def scenario(num_blocks: int) -> Simulator:
    sim = Simulator(num_blocks=num_blocks, block_size=4)
    sim.add("the cat sat on the mat", max_tokens=6)
    sim.add("the cat sat on a hat", max_tokens=6)
    for i in range(num_blocks // 16):  # fill a big pool with unrelated requests
        sim.add(f"request {i:04d} shares nothing", max_tokens=8)
    return sim


def kv_timeline() -> Timeline:
    """A recorded run with made-up K and V values written in its first step (no model needed), at that step."""
    sim = scenario(12)
    sim.run(1)
    data = trace_to_dict(sim)
    data["frames"][1]["payload"] = {"kv": {"layer": 0, "head": 0, "slots": [0, 1, 2, 3],
                                           "k": [[1.0, -1.0]] * 4, "v": [[-1.0, 1.0]] * 4}}
    timeline = trace_from_dict(data)
    timeline.seek(1)
    return timeline
