"""Random operation streams for the differential test and its benchmark (see drive.py for the
shape). Few distinct tokens and short keys, so that requests share prefixes and part inside
edges: every stream splits nodes, and locks, matches and evictions meet on shared paths."""
import random

PAGE_SIZES = [1, 2, 4]
# SGLang's policies that a plain RadixCache serves; "tlru" reads node fields that only SGLang's
# session-aware trees keep (_tlru_history_len), so it is left out on both sides.
POLICIES = ["lru", "lfu", "fifo", "mru", "filo", "priority", "slru"]


def random_stream(rng: random.Random, max_ops: int = 30) -> dict:
    open_locks: list[int] = []
    taken = 0
    slot = 1000
    ops = []
    for _ in range(rng.randint(1, max_ops)):
        kind = rng.choices(["insert", "match", "unlock", "evict"], weights=[4, 3, 1, 2])[0]
        tokens = [rng.randint(0, 3) for _ in range(rng.randint(0, 12))]
        if kind == "insert":
            value = None
            if rng.random() < 0.7:
                value = list(range(slot, slot + len(tokens)))
                slot += len(tokens)
            ops.append({"op": "insert", "tokens": tokens, "value": value, "priority": rng.randint(0, 3),
                        "inserted_len": rng.randint(0, len(tokens))})
        elif kind == "match":
            lock = rng.random() < 0.5
            ops.append({"op": "match", "tokens": tokens, "lock": lock})
            if lock:
                open_locks.append(taken)
                taken += 1
        elif kind == "unlock" and open_locks:
            ops.append({"op": "unlock", "lock": open_locks.pop(rng.randrange(len(open_locks)))})
        elif kind == "evict":
            ops.append({"op": "evict", "num_tokens": rng.randint(0, 20)})
    return {"page_size": rng.choice(PAGE_SIZES), "policy": rng.choice(POLICIES),
            "is_eagle": rng.random() < 0.2, "ops": ops}
