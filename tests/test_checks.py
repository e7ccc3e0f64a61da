"""Bad arguments to Config, SamplingParams, the Simulator and the LLM: a ValueError naming the
value and what is allowed, raised before anything changes."""
import re

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from blockviz import checks
from blockviz.config import Config
from blockviz.engine.sequence import Sequence
from blockviz.llm import LLM
from blockviz.sampling_params import SamplingParams
from blockviz.sim import Simulator
from tests.fuzz.state import engine_state, unchanged_by


@pytest.mark.parametrize("kwargs, message", [
    ({"block_size": True}, "block_size must be a whole number"),
    ({"block_size": 4.0}, "block_size must be a whole number"),
    ({"num_blocks": "8"}, "num_blocks must be a whole number"),
    ({"num_blocks": 10**8}, r"num_blocks must be a whole number in 1\.\.4194304"),
    ({"max_num_seqs": 0}, "max_num_seqs"),
    ({"max_num_batched_tokens": False}, "max_num_batched_tokens"),
    ({"eos": 2**63}, "eos"),
    ({"rule": "random"}, "rule must be one of 'echo', 'count'"),
    ({"record": "yes"}, "record must be True or False"),
    ({"free_order": 3}, "free_order must be a list"),
    ({"free_order": [0, 1.5]}, r"free_order\[1\]"),
    ({"max_model_len": 10**6}, "max_model_len"),
])
def test_simulator_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Simulator(**{"num_blocks": 8, **kwargs})


def busy_simulator() -> Simulator:
    sim = Simulator(num_blocks=8, block_size=4)
    sim.add("hello world", max_tokens=4, script="abc")
    sim.step()
    return sim


@pytest.mark.parametrize("kwargs, message", [
    ({"max_tokens": 2.5}, "max_tokens must be a whole number >= 1, got 2.5"),
    ({"max_tokens": True}, "max_tokens must be a whole number"),
    ({"max_tokens": 0}, "max_tokens must be a whole number >= 1, got 0"),
    ({"max_tokens": "4"}, "max_tokens"),
    ({"ignore_eos": "no"}, "ignore_eos must be True or False, got 'no'"),
    ({"ignore_eos": 1}, "ignore_eos must be True or False"),
    ({"prompt": [1, -2]}, r"prompt\[1\] = -2 is not a token id"),
    ({"prompt": [2**63]}, "is not a token id"),
    ({"prompt": [2**64 + 5]}, "is not a token id"),
    ({"prompt": [1, 2.0]}, r"prompt\[1\] = 2.0"),
    ({"prompt": [True]}, "is not a token id"),
    ({"prompt": []}, "is empty"),
    ({"prompt": 5}, "prompt must be text or a list of token ids"),
    ({"prompt": b"ab"}, "prompt must be text or a list of token ids"),
    ({"script": [1, -1]}, r"script\[1\]"),
    ({"label": 3}, "label must be printable"),
    ({"label": "a\nb"}, "label must be printable"),
    ({"label": "x" * 41}, "label must be printable"),
    ({"prompt": "x" * 5000}, "the prompt has 5000 tokens, more than max_model_len=4096"),
    ({"prompt": "x" * 40, "max_tokens": 5000}, r"prompt \(40\) \+ max_tokens \(5000\) = 5040 exceeds max_model_len=4096"),
    ({"prompt": "abcdefghijklmnopqrstuvwxyz0123456"}, "grows to 12 blocks"),  # 33 + 16 - 1 tokens, blocks of 4
])
def test_add_rejects_bad_requests_and_changes_nothing(kwargs, message):
    sim = busy_simulator()
    kwargs = {"prompt": "abc", **kwargs}
    error = unchanged_by(sim, lambda: sim.add(**kwargs))
    assert error is not None and re.search(message, str(error)), error


def test_add_sequence_takes_only_fresh_checked_sequences():
    sim = busy_simulator()
    used = next(iter(sim.seqs.values()))
    for bad in (used, "abc", Sequence([1, 2**63], block_size=4)):
        assert unchanged_by(sim, lambda: sim.add_sequence(bad)) is not None


def test_identical_big_ids_are_refused_rather_than_hashed_by_pointer():
    """numpy packs ids >= 2**64 as Python objects, so compute_hash would hash their addresses and an
    identical prefix would never hit: such ids never reach it."""
    sim = Simulator(num_blocks=8, block_size=2)
    for ids in ([2**64, 2**64 + 1], [2**63, 1]):
        with pytest.raises(ValueError, match="not a token id"):
            sim.add(ids, max_tokens=1)
    assert not sim.seqs


@pytest.mark.parametrize("kwargs, message", [
    ({"temperature": -1}, "temperature"), ({"temperature": float("nan")}, "temperature"),
    ({"temperature": "0"}, "temperature"), ({"temperature": True}, "temperature"),
    ({"max_tokens": 2.5}, "max_tokens"), ({"max_tokens": 0}, "max_tokens"),
    ({"ignore_eos": "no"}, "ignore_eos"), ({"ignore_eos": None}, "ignore_eos"),
])
def test_sampling_params(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SamplingParams(**kwargs)


@pytest.mark.parametrize("kwargs, message", [
    ({"tensor_parallel_size": 2}, "tensor_parallel_size must be 1"),
    ({"enforce_eager": False}, "enforce_eager must be True"),
    ({"gpu_memory_utilization": 1.5}, "gpu_memory_utilization"),
    ({"gpu_memory_utilization": "0.9"}, "gpu_memory_utilization"),
    ({"eos": -2}, "eos"), ({"max_model_len": True}, "max_model_len"),
])
def test_config_says_what_blockviz_does_not_do(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Config(**{"num_kvcache_blocks": 8, "kvcache_block_size": 4, **kwargs})


def test_token_ids_accept_numpy_and_reject_the_rest():
    import numpy as np
    assert checks.token_ids("p", np.array([1, 2, 3])) == [1, 2, 3]
    assert checks.token_ids("p", [5], vocab_size=6) == [5]
    with pytest.raises(ValueError, match="vocabulary has 6 ids"):
        checks.token_ids("p", [6], vocab_size=6)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-3, 2**31 + 3), max_size=6), st.sampled_from([None, 7, 2**31]),
       st.sampled_from([np.int64, np.uint64, np.int32]), st.booleans())
def test_an_array_of_ids_is_checked_as_the_list_is(ids, vocab_size, dtype, allow_empty):
    """checks.token_array, two vectorized passes for a trace's prompts: the list's answer or its error."""
    assume(dtype is np.int64 or all(np.iinfo(dtype).min <= t <= np.iinfo(dtype).max for t in ids))   # ids the dtype holds
    outcomes = []
    for given_ids in (ids, np.array(ids, dtype=dtype)):
        try:
            outcomes.append(checks.token_ids("prompt", given_ids, vocab_size, allow_empty))
        except ValueError as e:
            outcomes.append(str(e))
    assert outcomes[0] == outcomes[1]
    if isinstance(outcomes[1], list):
        assert all(type(t) is int for t in outcomes[1])


# --- the LLM ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def llm() -> LLM:
    return LLM(device="cpu", kvcache_block_size=4, num_kvcache_blocks=16, max_model_len=64)


@pytest.mark.parametrize("kwargs, message", [
    ({"kv_layer": 99}, r"kv_layer must be a whole number in 0\.\.3, got 99"),
    ({"kv_head": 99}, r"kv_head must be a whole number in 0\.\.1, got 99"),
    ({"kv_layer": -1}, "kv_layer"), ({"kv_head": 1.0}, "kv_head"),
    ({"seed": -1}, "seed"), ({"seed": "1"}, "seed"),
    ({"kv_cache_memory": 0}, "kv_cache_memory"),
    ({"record": 1}, "record must be True or False"),
    ({"tensor_parallel_size": 2}, "tensor_parallel_size"),
    ({"device": "tpu"}, "device must be 'cpu', 'cuda' or 'cuda:N'"), ({"device": 0}, "device"),
    ({"num_kvcache_blocks": 10**12}, "the KV pool would take .* GiB"), ({"num_kvcache_blocks": -1, "kv_cache_memory": 2**60}, "GiB"),
    ({"dtype": "int8"}, "dtype must be one of"), ({"model": 5}, "model must be a checkpoint folder"),
])
def test_llm_options_are_checked_before_the_model_loads(kwargs, message):
    with pytest.raises(ValueError, match=message):
        LLM(**{"device": "cpu", "num_kvcache_blocks": 8, **kwargs})


@pytest.mark.parametrize("prompt, params, message", [
    ([1, 10**6], SamplingParams(max_tokens=2), r"prompt\[1\] = 1000000 is not a token id.*vocabulary has 4096"),
    ([-1], SamplingParams(max_tokens=2), "is not a token id"),
    ([1, 2.0], SamplingParams(max_tokens=2), "is not a token id"),
    ([1, 2], {"max_tokens": 2}, "sampling_params must be a SamplingParams"),
    ([1] * 60, SamplingParams(max_tokens=10), "exceeds max_model_len=64"),
])
def test_llm_requests_are_checked_before_anything_is_added(llm, prompt, params, message):
    for attempt in (lambda: llm.add_request(prompt, params), lambda: llm.generate([[1, 2], prompt], params)):
        error = unchanged_by(llm, attempt)
        assert error is not None and re.search(message, str(error)), error
    out = llm.generate([[1, 2, 3]], SamplingParams(temperature=0, max_tokens=2))  # still serves
    assert len(out[0]["token_ids"]) == 2 and engine_state(llm)[:2] == ([], [])


def test_generate_takes_a_list_of_prompts(llm):
    for bad in ("one prompt", 5, [[1, 2]] * 2):
        params = SamplingParams(max_tokens=1) if bad != [[1, 2]] * 2 else [SamplingParams(max_tokens=1)]
        assert unchanged_by(llm, lambda: llm.generate(bad, params)) is not None
