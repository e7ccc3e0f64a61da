"""The fast free queue keeps nano-vllm's deque order under every operation the BlockManagers use."""
from collections import deque

import pytest
from hypothesis import given, settings, strategies as st

from blockviz.policies.free_queue import OrderedFreeQueue

ops = st.lists(st.tuples(st.sampled_from(["popleft", "pop", "append", "appendleft", "remove", "extend",
                                                    "extendleft", "clear"]),
                         st.lists(st.integers(0, 30), max_size=4)), max_size=40)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 20), ops)
def test_same_order_as_a_deque(n, operations):
    d, q = deque(range(n)), OrderedFreeQueue(range(n))
    for op, args in operations:
        free = [b for b in args if b not in d]   # a block is in the free queue at most once
        if op in ("popleft", "pop"):
            if d:
                assert getattr(q, op)() == getattr(d, op)()
        elif op == "remove":
            if d:
                b = list(d)[args[0] % len(d)] if args else d[0]
                d.remove(b), q.remove(b)
        elif op in ("append", "appendleft"):
            if free:
                getattr(d, op)(free[0]), getattr(q, op)(free[0])
        elif op in ("extend", "extendleft"):
            free = list(dict.fromkeys(free))
            getattr(d, op)(free), getattr(q, op)(free)
        else:
            d.clear(), q.clear()
        assert list(q) == list(d) and len(q) == len(d)
        if d:
            assert (q[0], q[-1]) == (d[0], d[-1]) and d[0] in q


def test_only_head_and_tail_are_read():
    with pytest.raises(IndexError, match="head"):
        OrderedFreeQueue(range(3))[1]


def test_a_copy_keeps_the_order_and_len_is_the_dicts():
    q = OrderedFreeQueue([4, 0, 2])
    copied = q.copy()
    copied.popleft()
    assert list(copied) == [0, 2] and list(q) == [4, 0, 2] and (q[0], q[-1]) == (4, 2)
    assert not {"__len__", "__contains__", "__iter__"} & set(vars(OrderedFreeQueue))   # the scheduler's calls stay in C
