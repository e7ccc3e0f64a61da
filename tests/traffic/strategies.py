"""Random small traces for the traffic tests: prompts walking a random tree of hash ids, so they share
prefixes as a real trace's do (an id names its whole prefix), with last blocks of any length."""
import numpy as np
from hypothesis import strategies as st

from blockviz.traffic.lengths import HASH_BLOCK
from blockviz.traffic.trace import Trace


@st.composite
def id_tree_traces(draw, max_requests: int, max_ids: int, max_output: int, gaps_ms: tuple[int, ...]) -> Trace:
    """Up to max_requests prompts of up to max_ids ids each; each arrives a gap drawn from gaps_ms after
    the one before (a gap of 0: a burst)."""
    children: dict = {}
    rows, next_id, clock = [], 0, 0
    for _ in range(draw(st.integers(1, max_requests))):
        ids, parent = [], None
        for _ in range(draw(st.integers(1, max_ids))):
            known = children.setdefault(parent, [])
            if known and draw(st.booleans()):
                h = draw(st.sampled_from(known))
            else:
                next_id += draw(st.integers(1, 3))
                h = next_id
                known.append(h)
            ids.append(h)
            parent = h
        clock += draw(st.sampled_from(gaps_ms))
        rows.append((clock, HASH_BLOCK * (len(ids) - 1) + draw(st.integers(1, HASH_BLOCK)),
                     draw(st.integers(1, max_output)), ids))
    offsets = np.cumsum([0] + [len(r[3]) for r in rows])
    return Trace("random", np.array([r[0] for r in rows], dtype=np.float64), np.array([r[1] for r in rows]),
                 np.array([r[2] for r in rows]), offsets, np.array([h for r in rows for h in r[3]], dtype=np.int64))
