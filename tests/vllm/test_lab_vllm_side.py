"""The lab's reading of vLLM's side (vllm_side.py) on hand-built records and steps: block hashes to
whole-prefix keys through the parents, and a burst's admission order from the order of its stores."""
from blockviz.vllm.index import BlockRecord, PrefixIndex
from blockviz.vllm.lab import Change
from blockviz.vllm.lab.vllm_side import EventKeys, admissions


def record(hash, parent, tokens, size=4):
    return BlockRecord("engine", hash, parent, tuple(tokens), size, "GPU", None, None, None, 0)


def test_a_blocks_key_is_its_parents_key_and_its_own_tokens():
    keys = EventKeys()
    assert keys.learn(record(b"a", None, [1, 2, 3, 4])) == (1, 2, 3, 4)
    assert keys.learn(record(b"b", b"a", [5, 6, 7, 8])) == (1, 2, 3, 4, 5, 6, 7, 8)
    assert keys.learn(record(b"c", b"b", [9])) is None                # a partial block is no cache entry
    assert keys.learn(record(b"d", b"unseen", [1, 1, 1, 1])) is None  # stored before the lab began
    index = PrefixIndex()
    for r in (record(b"a", None, [1, 2, 3, 4]), record(b"b", b"a", [5, 6, 7, 8]),
              record(b"d", b"unseen", [1, 1, 1, 1])):
        index.live[("engine", "GPU", None, r.hash)] = r
    assert keys.resident(index) == {(1, 2, 3, 4), (1, 2, 3, 4, 5, 6, 7, 8)}


def test_a_bursts_admission_order_is_read_from_the_order_of_vllms_stored_blocks():
    S = (1, 2, 3, 4)
    seqs = [S + (10, 11, 12, 13), S + (20, 21, 22, 23), S + (30, 31, 32, 33), S + (40,)]
    # step 5 stores the shared block (no one's own) and request 1's; step 6 request 2's, then 0's;
    # request 3 has no full block of its own
    steps = (Change(5, (S, seqs[1]), ()), Change(6, (seqs[2], seqs[0]), ()))
    assert admissions([0, 1, 2, 3], seqs, steps) == [(1, 5), (2, 6), (0, 6), (3, None)]
