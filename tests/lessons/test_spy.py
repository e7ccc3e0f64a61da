from blockviz import Simulator
from blockviz.lessons import compress, record_calls


def test_record_calls_restores_the_methods():
    sim = Simulator(num_blocks=4, block_size=4)
    sim.add("abcdef", max_tokens=3)
    bm = sim.scheduler.block_manager
    with record_calls(bm, ["can_allocate", "allocate", "can_append", "may_append", "hash_blocks"]) as log:
        sim.run()
    assert log[:2] == ["can_allocate", "allocate"] and "may_append" in log
    assert "can_allocate" not in vars(bm)
    assert compress(["a", "a", "b", "a"]) == [("a", 2), ("b", 1), ("a", 1)]

