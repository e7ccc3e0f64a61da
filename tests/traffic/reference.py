"""Written apart from blockviz.traffic: what an infinite prefix cache serves, by whole prefixes."""
import math


def infinite_cache_tokens(rows: list[dict]) -> list[int]:
    """rows: the trace's JSON objects. A prompt's first k blocks hit when the prefix made of its
    first k ids was the prefix of some earlier prompt (ids name prefixes, so a set of tuples)."""
    prefixes: set[tuple] = set()
    out = []
    for row in rows:
        ids = tuple(row["hash_ids"])
        k = 0
        while k < len(ids) and ids[:k + 1] in prefixes:
            k += 1
        out.append(min(512 * k, row["input_length"]))
        prefixes.update(ids[:j] for j in range(1, len(ids) + 1))
    return out


def block_count(input_length: int) -> int:
    return math.ceil(input_length / 512)
