"""The one-pass curve against a brute-force LRU cache of prompt blocks, written apart: real token
contents (tokens.prompt_tokens), a prefix's tokens as the key, an OrderedDict as the LRU."""
from collections import OrderedDict

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from blockviz import traffic
from blockviz.traffic import curve
from blockviz.traffic.lengths import HASH_BLOCK, output_length
from blockviz.traffic.tokens import prompt_tokens
from blockviz.traffic.trace import Trace

from tests.traffic.strategies import id_tree_traces


def brute_force(trace: Trace, blocks: int, block_size: int, tokens_per_id: int, generated: bool = True):
    """Per request, the prompt tokens an LRU cache of `blocks` blocks serves, a request at a time:
    look up blocks 0 .. ceil(p / B) - 2 until the first miss, then use every block the request
    held, from the last to the first (blocks holding generated tokens are blocks of their own)."""
    lru: OrderedDict = OrderedDict()
    served, own = [], 0
    for i in range(len(trace)):
        tokens = prompt_tokens(trace.ids(i), int(trace.input_lengths[i]), tokens_per_id)
        p = len(tokens)
        o = output_length(int(trace.output_lengths[i]), tokens_per_id)
        keys = [tuple(tokens[:(j + 1) * block_size]) for j in range(p // block_size)]
        hits = 0
        while hits < -(-p // block_size) - 1 and keys[hits] in lru:
            hits += 1
        served.append(hits * block_size)
        held = -(-(p + o) // block_size) if generated else len(keys)
        used = []
        for _ in range(held - len(keys)):
            own += 1
            used.append(("generated", own))
        for key in used + keys[::-1]:
            lru[key] = None
            lru.move_to_end(key)
            while len(lru) > blocks:
                lru.popitem(last=False)
    return np.array(served)


def traces():
    """Lengths of any remainder, one arrival every 10 ms."""
    return id_tree_traces(max_requests=12, max_ids=5, max_output=700, gaps_ms=(10,))


@settings(max_examples=60, deadline=None)
@given(traces(), st.sampled_from([(4, 8), (8, 8), (6, 8), (16, 32), (512, 512)]), st.booleans(),
       st.lists(st.integers(0, 120), min_size=1, max_size=4))
def test_the_curve_is_an_lru_cache_at_every_size(trace, sizes, generated, pools):
    block_size, tokens_per_id = sizes
    c = curve(trace, block_size, tokens_per_id, generated=generated)
    for blocks in pools:
        expected = brute_force(trace, blocks, block_size, tokens_per_id, generated)
        pool = int(c.pool_tokens(blocks))
        assert c.blocks(pool) == blocks
        assert c.cached_tokens(pool).tolist() == expected.tolist()
        assert c.hit_rate(pool) == pytest.approx(expected.sum() / c.total_prompt_tokens)
    pools_at, rates = c.points()
    assert np.all(np.diff(pools_at) > 0) and np.all(np.diff(rates) > 0)
    for pool, rate in zip(pools_at.tolist(), rates.tolist()):
        assert c.hit_rate(pool) == pytest.approx(rate) and c.pool_for(rate) == pool
        assert c.hit_rate(pool - 1) < rate
    assert c.max_hit_rate == pytest.approx(rates[-1] if len(rates) else 0)
    assert c.pool_for(min(1.0, c.max_hit_rate + 1e-9)) is None or c.max_hit_rate == 1


def test_the_shipped_traces_at_five_sizes_against_brute_force():
    trace = traffic.load("conversation").head(300)
    c = curve(trace, 512, 512)
    for blocks in (1, 50, 500, 3000, 100_000):
        expected = brute_force(trace, blocks, 512, 512)
        assert c.cached_tokens(blocks * 512).tolist() == expected.tolist()


def test_the_bound_is_the_trace_bound_less_what_the_engine_never_probes():
    trace = traffic.load("synthetic")
    c = curve(trace)
    assert 0 < c.max_hit_rate <= trace.theoretical_hit_rate()
    assert c.max_hit_rate == pytest.approx(trace.theoretical_hit_rate(), abs=0.002)
    assert c.hit_rate(0) == 0 and c.pool_for(0) == 0 and c.pool_for(1.0) is None


def test_a_scaled_pool_is_counted_in_real_tokens():
    trace = traffic.load("conversation").head(200)
    real, scaled = curve(trace, 512, 512), curve(trace, 32, 32)
    assert scaled.blocks(10**6) == real.blocks(10**6) == 10**6 // 512
    assert scaled.max_hit_rate == pytest.approx(real.max_hit_rate, abs=0.01)


@pytest.mark.parametrize("kwargs, message", [
    ({"block_size": 0}, "block_size"), ({"tokens_per_id": 0}, "tokens_per_id"),
    ({"tokens_per_id": 513}, "tokens_per_id"), ({"generated": 1}, "generated")])
def test_bad_arguments_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        curve(traffic.load("synthetic").head(3), **kwargs)


def test_the_module_docstring_runs():
    import doctest
    import importlib
    module = importlib.import_module("blockviz.traffic.curve")   # the attribute is the function
    assert doctest.testmod(module).failed == 0


def brute_force_tiers(trace: Trace, gpu: int, cpu: int, block_size: int, tokens_per_id: int, write_through: bool):
    """(GPU-served, CPU-served) prompt tokens of two LRU pools, looked up GPU first then CPU.
    write_through: every used block is stored (or touched) in the CPU pool too (vLLM's offloading);
    else the CPU pool takes what the GPU evicts and gives a hit back to it (a victim cache)."""
    g: OrderedDict = OrderedDict()
    c: OrderedDict = OrderedDict()
    on_gpu = on_cpu = own = 0
    for i in range(len(trace)):
        tokens = prompt_tokens(trace.ids(i), int(trace.input_lengths[i]), tokens_per_id)
        p, o = len(tokens), output_length(int(trace.output_lengths[i]), tokens_per_id)
        keys = [tuple(tokens[:(j + 1) * block_size]) for j in range(p // block_size)]
        probes = -(-p // block_size) - 1
        j = 0
        while j < probes and keys[j] in g:
            j += 1
        on_gpu += j * block_size
        k = j
        while k < probes and keys[k] in c:
            k += 1
        on_cpu += (k - j) * block_size
        used = []
        for _ in range(-(-(p + o) // block_size) - len(keys)):
            own += 1
            used.append(("generated", own))
        for key in used + keys[::-1]:
            if write_through:
                for pool, size in ((g, gpu), (c, cpu)):
                    pool[key] = None
                    pool.move_to_end(key)
                    while len(pool) > size:
                        pool.popitem(last=False)
            else:
                c.pop(key, None)
                g[key] = None
                g.move_to_end(key)
                while len(g) > gpu:
                    victim, _ = g.popitem(last=False)
                    c[victim] = None
                    while len(c) > cpu:
                        c.popitem(last=False)
    return on_gpu, on_cpu


@settings(max_examples=40, deadline=None)
@given(traces(), st.sampled_from([(4, 8), (8, 8), (16, 32)]), st.integers(0, 60), st.integers(0, 60), st.booleans())
def test_two_tiers_are_two_lru_pools(trace, sizes, gpu, cpu, write_through):
    block_size, tokens_per_id = sizes
    c = curve(trace, block_size, tokens_per_id)
    on_gpu, on_cpu = brute_force_tiers(trace, gpu, cpu, block_size, tokens_per_id, write_through)
    t = c.tiers(int(c.pool_tokens(gpu)), int(c.pool_tokens(cpu)), bytes_per_token=10, write_through=write_through)
    assert t.gpu_hit_rate == pytest.approx(on_gpu / c.total_prompt_tokens)
    assert t.cpu_hit_rate == pytest.approx(on_cpu / c.total_prompt_tokens)
    assert t.loaded_bytes_per_s == pytest.approx(10 * t.loaded_tokens_per_s)


@st.composite
def loose_traces(draw):
    """Ids drawn freely from a few values: one id after different prefixes, even twice in a prompt
    (not the format's rule, but the engine keys blocks by their whole prefix all the same)."""
    rows = [(draw(st.lists(st.integers(1, 4), min_size=1, max_size=5)), draw(st.integers(1, 300)))
            for _ in range(draw(st.integers(1, 10)))]
    lengths = [HASH_BLOCK * (len(ids) - 1) + draw(st.integers(1, HASH_BLOCK)) for ids, _ in rows]
    offsets = np.cumsum([0] + [len(ids) for ids, _ in rows])
    return Trace("loose", np.arange(len(rows), dtype=np.float64), np.array(lengths), np.array([o for _, o in rows]),
                 offsets, np.array([h for ids, _ in rows for h in ids], dtype=np.int64))


@settings(max_examples=40, deadline=None)
@given(loose_traces(), st.integers(0, 40))
def test_blocks_are_keyed_by_their_whole_prefix(trace, blocks):
    c = curve(trace, 8, 8)
    assert c.cached_tokens(int(c.pool_tokens(blocks))).tolist() == brute_force(trace, blocks, 8, 8).tolist()
