"""snapshot.free_block_ids is an array the garbage collector never walks, read like a tuple."""
import gc

from blockviz.sim import Simulator
from blockviz.recording.snapshot import FreeQueue


def test_free_queue_compares_and_reads_like_a_tuple():
    q = FreeQueue([3, 1, 2])
    assert q == (3, 1, 2) and q == [3, 1, 2] and q == FreeQueue([3, 1, 2])
    assert q != (3, 1) and q != (1, 2, 3) and not (q == (1, 2, 3))
    assert q[0] == 3 and type(q[0]) is int and list(q) == [3, 1, 2] and 2 in q and q.index(2) == 2
    assert len(q) == 3 and repr(q) == "FreeQueue([3, 1, 2])"
    assert q != "312" and (q == 312) is False


def test_the_collector_does_not_walk_a_pictures_free_queue():
    sim = Simulator(num_blocks=4096, block_size=4)
    sim.add("abcdefgh" * 3, max_tokens=6)
    sim.run()
    queue = sim.snapshot(sim.last_step).free_block_ids
    assert len(queue) > 4000 and len(gc.get_referents(queue)) <= 1  # its type at most, never its ids
    assert queue == tuple(sim.scheduler.block_manager.free_block_ids)
