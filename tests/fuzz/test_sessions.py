"""Random config and sampling values for the Simulator, SamplingParams, config.json and the LLM:
a ValueError that changes nothing, or an engine that runs every accepted request to its end."""
from hypothesis import HealthCheck, event, given, settings, strategies as st

from blockviz.config import Config
from blockviz.llm import LLM
from blockviz.models.config import QWEN3_0_6B, Qwen3Config
from blockviz.sampling_params import SamplingParams
from blockviz.sim import Simulator
from tests.fuzz.state import unchanged_by
from tests.fuzz.strategies import JSON, NUMBERS, SCALARS

WRONG = st.one_of(SCALARS, NUMBERS, st.lists(NUMBERS, max_size=3))


def mostly(valid: st.SearchStrategy) -> st.SearchStrategy:
    return st.integers(0, 5).flatmap(lambda i: valid if i < 5 else WRONG)


SIM_ARGS = st.fixed_dictionaries({}, optional={
    "num_blocks": mostly(st.integers(1, 24)), "block_size": mostly(st.integers(1, 8)),
    "max_num_seqs": mostly(st.integers(1, 6)), "max_num_batched_tokens": mostly(st.integers(1, 40)),
    "eos": mostly(st.integers(-1, 5)), "rule": mostly(st.sampled_from(["echo", "count"])),
    "record": mostly(st.booleans()), "max_model_len": mostly(st.integers(1, 64))})
ADD_ARGS = st.fixed_dictionaries(
    {"prompt": mostly(st.one_of(st.text("abcd", min_size=1, max_size=16), st.lists(st.integers(0, 2**31 - 1), min_size=1, max_size=12)))},
    optional={"max_tokens": mostly(st.integers(1, 12)), "ignore_eos": mostly(st.booleans()),
              "label": mostly(st.sampled_from(["A", "B", "req 1", "<b>x</b>"])),
              "script": mostly(st.one_of(st.text("xyz", max_size=5), st.lists(st.integers(0, 9), max_size=5)))})


@settings(max_examples=150, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(sim_args=SIM_ARGS, adds=st.lists(ADD_ARGS, max_size=6), steps_between=st.integers(0, 3))
def test_random_simulators_and_requests(sim_args, adds, steps_between):
    try:
        sim = Simulator(**sim_args)
    except ValueError:
        event("simulator refused")
        return
    accepted = 0
    for kwargs in adds:
        if unchanged_by(sim, lambda: sim.add(**kwargs)) is None:
            accepted += 1
        sim.run(max_steps=steps_between)
    sim.run()  # every accepted request fits at its longest: the run always ends
    assert sim.is_finished()
    assert all(seq.is_finished for seq in sim.seqs.values()) and len(sim.seqs) == accepted
    event({0: "no request accepted", 1: "1 request ran"}.get(accepted, "2+ requests ran"))


@settings(max_examples=200, deadline=None)
@given(temperature=mostly(st.floats(0, 2)), max_tokens=mostly(st.integers(1, 100)), ignore_eos=mostly(st.booleans()))
def test_random_sampling_params(temperature, max_tokens, ignore_eos):
    try:
        params = SamplingParams(temperature, max_tokens, ignore_eos)
    except ValueError:
        return
    assert type(params.temperature) is float and type(params.max_tokens) is int and type(params.ignore_eos) is bool


CONFIG_KEYS = sorted(QWEN3_0_6B) + ["head_dim", "rope_scaling"]


@settings(max_examples=200, deadline=None)
@given(changes=st.dictionaries(st.sampled_from(CONFIG_KEYS), st.one_of(WRONG, JSON), max_size=3))
def test_random_config_json_values(changes):
    try:
        config = Qwen3Config.from_dict({**QWEN3_0_6B, **changes})
    except ValueError:
        return
    assert config.hidden_size >= 1 and config.num_attention_heads % config.num_key_value_heads == 0


@settings(max_examples=200, deadline=None)
@given(changes=st.dictionaries(st.sampled_from(["max_num_batched_tokens", "max_num_seqs", "max_model_len",
                                                "gpu_memory_utilization", "tensor_parallel_size", "enforce_eager",
                                                "eos", "kvcache_block_size", "num_kvcache_blocks"]), WRONG, max_size=3))
def test_random_engine_config(changes):
    try:
        Config(**changes)
    except ValueError:
        pass


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options=st.fixed_dictionaries({}, optional={
    "kv_layer": mostly(st.integers(0, 3)), "kv_head": mostly(st.integers(0, 1)), "seed": mostly(st.integers(0, 9)),
    "kvcache_block_size": mostly(st.integers(1, 8)), "max_model_len": mostly(st.integers(8, 64))}),
    prompt=mostly(st.lists(st.integers(0, 5000), min_size=1, max_size=10)), max_tokens=mostly(st.integers(1, 4)))
def test_random_llm_options_and_requests(options, prompt, max_tokens):
    try:
        llm = LLM(device="cpu", num_kvcache_blocks=32, **options)
    except ValueError:
        return
    try:
        params = SamplingParams(temperature=0, max_tokens=max_tokens)
    except ValueError:
        return
    if unchanged_by(llm, lambda: llm.generate([prompt], params)) is not None:
        return
    assert llm.is_finished() and llm.generate([[1, 2]], SamplingParams(temperature=0, max_tokens=1))
