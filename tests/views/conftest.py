"""Engine scenarios the view tests render: together they reach all six block states, every probe
outcome a real run can produce, preemption, chunked prefill and requests arriving mid-run."""
import pytest

from blockviz import Simulator


def build_lifecycle() -> Simulator:
    sim = Simulator(num_blocks=12, block_size=4)
    sim.add("the cat sat on the mat", max_tokens=6)
    sim.add("the cat sat on a hat", max_tokens=6)      # same first blocks, registered later: A's go stale
    sim.run(3)
    sim.add("the cat sat on the mat again", max_tokens=12)  # hits a running request's blocks: shared
    sim.run()
    sim.add("the cat sat on a hat, twice", max_tokens=3)    # hits freed blocks: revived
    sim.add("a dog", max_tokens=2)
    sim.run()
    return sim


def build_chunked() -> Simulator:
    sim = Simulator(num_blocks=16, block_size=4, max_num_batched_tokens=10)
    sim.add("abcdefghijklmn", max_tokens=3)
    sim.add("abcdefghXYZ", max_tokens=3)
    sim.run()
    return sim


def build_gpu_sized(num_blocks: int) -> Simulator:
    """A few requests sharing a prefix in a pool as large as a GPU's (tens of thousands of blocks)."""
    sim = Simulator(num_blocks=num_blocks, block_size=4)
    for i in range(12):
        sim.add(f"the cat sat on the mat, then request {i} asked for more", max_tokens=8)
    sim.run()
    return sim


@pytest.fixture(scope="session")
def lifecycle() -> Simulator:
    return build_lifecycle()


@pytest.fixture(scope="session")
def chunked() -> Simulator:
    return build_chunked()


@pytest.fixture(params=["lifecycle", "chunked"], scope="session")
def scenario(request) -> Simulator:
    return request.getfixturevalue(request.param)


@pytest.fixture(scope="session")
def huge() -> Simulator:
    return build_gpu_sized(65536)


@pytest.fixture(scope="session")
def huge_as_4096() -> Simulator:
    """The same requests in a pool of 4096 blocks."""
    return build_gpu_sized(4096)


@pytest.fixture(scope="session")
def pages():
    """The widgets' front end in node and jsdom (jspage.py); skips when node or jsdom is missing."""
    from jspage import Pages
    started = Pages()
    yield started
    started.close()
