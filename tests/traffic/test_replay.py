"""A trace replayed through nano-vllm's engine: cached tokens as the scheduler counts them, the
queue-at-a-time hand-over and the fast free queue changing nothing, the infinite-cache bound."""
import json

import numpy as np
import pytest

from blockviz import checks, traffic
from blockviz.sim import Simulator
from blockviz.traffic.replay import output_rule, replay, workload_of
from blockviz.workload import Workload, play, token_ids
from tests.recording.reference import engine_picture


@pytest.fixture(scope="module")
def conversation():
    return traffic.load("conversation")


def plain_play(trace, pool_tokens, block_size, tokens_per_id, arrivals, max_num_seqs):
    """Every request queued at its time, nano-vllm's own deque, the driver's own loop."""
    workload = workload_of(trace, pool_tokens, block_size, tokens_per_id, arrivals, max_num_seqs)
    played = play(workload, workload.simulator(eos=-1, rule=output_rule, record=False))
    return [s.cached_at_admission[0] for s in played.served], [s.preemptions for s in played.served]


@pytest.mark.parametrize("arrivals, pool, seqs", [("in-order", 40_000, 4), ("timestamps", 60_000, 3),
                                                    ("in-order", 200_000, 512)])
def test_the_replay_is_the_plain_play(conversation, arrivals, pool, seqs):
    trace = conversation.head(40)
    result = replay(trace, pool, 64, arrivals=arrivals, tokens_per_id=32, max_num_seqs=seqs)
    cached, preempted = plain_play(trace, pool, 64, 32, arrivals, seqs)
    assert result.cached_tokens.tolist() == cached and result.preemptions.tolist() == preempted
    assert result.hit_rate == sum(cached) / result.prompt_tokens.sum()


def test_one_request_a_step_and_an_ample_pool_reach_the_bound(conversation):
    # prefilled one at a time, each registers its blocks before the next arrives: every block seen
    # before hits, except a prompt's last block, which nano-vllm never probes
    trace = conversation.head(60)
    result = replay(trace, 10**6, 32, arrivals="in-order", tokens_per_id=32, max_num_seqs=1)
    seen, expected = set(), []
    for i in range(len(trace)):
        ids, n = trace.ids(i).tolist(), int(result.prompt_tokens[i])
        k = next((j for j, h in enumerate(ids) if h not in seen), len(ids))
        expected.append(min(k, -(-n // 32) - 1) * 32)
        seen.update(ids)
    assert result.cached_tokens.tolist() == expected
    assert result.hit_rate <= trace.theoretical_hit_rate(32)


def test_vllm_policy_hits_within_a_step_where_nano_vllm_cannot(conversation):
    trace = conversation.head(30)   # the first requests all arrive at 0 and share block 0
    nano = replay(trace, 10**6, 32, arrivals="in-order", tokens_per_id=32)
    vllm = replay(trace, 10**6, 32, policy="vllm", arrivals="in-order", tokens_per_id=32)
    assert vllm.cached_tokens.sum() > nano.cached_tokens.sum()
    assert vllm.hit_rate <= trace.theoretical_hit_rate(32)


def test_a_small_pool_preempts_and_hit_rate_over_time(conversation):
    trace = conversation.head(80)
    assert replay(trace, 12_000, 32, arrivals="in-order", tokens_per_id=32).preemptions.sum() > 0
    result = replay(trace, 12_000, 32, arrivals="timestamps", tokens_per_id=32)
    starts, rates = result.hit_rate_over_time(5)
    assert len(starts) == len(rates) and np.all((0 <= rates) & (rates <= 1))
    assert result.seconds > trace.timestamps_ms[-1] / 1000
    assert not result.engine.seqs   # finished requests were let go


def test_a_recording_for_the_views(conversation):
    trace = conversation.head(5)
    result = replay(trace, 50_000, 32, tokens_per_id=16, record=True)
    assert result.engine.record and result.engine.snapshot(result.steps).num_blocks == 50_000 // 32
    vllm = replay(trace, 50_000, 32, tokens_per_id=16, record=True, policy="vllm")   # any policy records
    assert vllm.engine.policy.name == "vllm"
    assert vllm.engine.snapshot(vllm.steps).plain() == engine_picture(vllm.engine, vllm.engine.snapshot(vllm.steps))


def test_bad_options_are_named(conversation):
    with pytest.raises(ValueError, match="policy must be one of"):
        replay(conversation.head(3), 10**6, 512, policy="lru")
    with pytest.raises(ValueError, match="arrivals must be one of"):
        replay(conversation.head(3), 10**6, 512, arrivals="poisson")


def long_trace(tmp_path, input_length: int, output_length: int = 1):
    """A short request, then one of `input_length` prompt tokens (hash ids of its own)."""
    path = tmp_path / "long.jsonl"
    rows = [{"timestamp": 0, "input_length": 600, "output_length": 2, "hash_ids": [1, 2]},
            {"timestamp": 5, "input_length": input_length, "output_length": output_length,
             "hash_ids": list(range(100, 100 + -(-input_length // 512)))}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return traffic.load(path)


def test_the_engine_limit_grows_to_the_longest_request(tmp_path):
    trace = long_trace(tmp_path, checks.MAX_SIM_MODEL_LEN - 1)  # prompt + 1 output token: just the limit
    result = replay(trace, checks.MAX_SIM_MODEL_LEN + 2048, 512, arrivals="in-order")
    assert result.prompt_tokens.tolist() == [600, checks.MAX_SIM_MODEL_LEN - 1]
    assert result.engine.config.max_model_len == checks.MAX_SIM_MODEL_LEN


def test_a_request_longer_than_the_engine_can_serve_is_named_before_any_replay_work(tmp_path, monkeypatch):
    trace = long_trace(tmp_path, checks.MAX_SIM_MODEL_LEN, output_length=10)
    monkeypatch.setattr(Workload, "simulator", lambda *a, **k: pytest.fail("an engine was built"))
    with pytest.raises(ValueError) as e:
        replay(trace, 10**7, 512)
    assert str(e.value).startswith(f"{trace.name}: request 2 (index 1) has 262,144 prompt + 10 output = 262,154 "
                                   f"tokens, more than the 262,144 (max_model_len) the engine can serve")
    with pytest.raises(ValueError, match=r"request 2 \(index 1\) has 262,176 prompt \+ 1 output = 262,177 tokens at "
                                         r"32 tokens per hash id"):  # scaled lengths, as the replay makes them
        replay(long_trace(tmp_path, 512 * 8193), 10**7, 32, tokens_per_id=32)


def test_a_request_larger_than_the_pool_is_refused_and_the_rest_replayed():
    trace = traffic.load("conversation").head(30)
    lengths = trace.input_lengths + trace.output_lengths
    pool = 20_000
    r = traffic.replay(trace, pool, 512)
    never = -(-(lengths - 1) // 512) > pool // 512
    assert never.any() and r.refused.tolist() == never.tolist()
    assert (r.cached_tokens[never] == 0).all() and r.prompt_tokens.sum() == trace.input_lengths.sum()
    assert "requests refused" in str(r)
    everyone = traffic.replay(trace.head(3), 600, 512)
    assert everyone.refused.all() and everyone.hit_rate == 0 and everyone.steps == 0
