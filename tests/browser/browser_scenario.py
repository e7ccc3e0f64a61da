"""The scenario the browser test's notebook runs; the test rebuilds it to know the expected states."""
from blockviz import Simulator


def scenario(num_blocks: int) -> Simulator:
    sim = Simulator(num_blocks=num_blocks, block_size=4)
    sim.add("the cat sat on the mat", max_tokens=6)
    sim.add("the cat sat on a hat", max_tokens=6)
    for i in range(num_blocks // 16):  # fill a big pool with unrelated requests
        sim.add(f"request {i:04d} shares nothing", max_tokens=8)
    return sim
