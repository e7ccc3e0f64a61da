"""A step that raises inside compute (the model, a hook, a bad token) ends its batch with an error
and releases its blocks: the engine stays consistent, the recording replays it, the next request runs."""
import pytest

from blockviz.sim import Simulator
from blockviz.states import classify
from tests.recording.reference import engine_picture


def pool_is_consistent(sim):
    bm = sim.scheduler.block_manager
    assert set(bm.free_block_ids) | bm.used_block_ids == set(range(len(bm.blocks)))
    assert not set(bm.free_block_ids) & bm.used_block_ids
    held = {}
    for seq in list(sim.scheduler.running) + list(sim.scheduler.waiting):
        for block_id in seq.block_table:
            held[block_id] = held.get(block_id, 0) + 1
    assert {b.block_id: b.ref_count for b in bm.blocks if b.ref_count} == held


@pytest.mark.parametrize("failure", ["raise", "wrong count", "bad token"])
def test_a_failing_step_leaves_the_engine_usable(failure):
    sim = Simulator(num_blocks=12, block_size=4)
    sim.add("the cat sat on the mat", max_tokens=5)
    sim.add("the cat sat on a hat", max_tokens=5)
    sim.step()
    compute = sim.compute

    def broken(seqs, is_prefill):
        if failure == "raise":
            raise ZeroDivisionError("the model broke")
        return [1] if failure == "wrong count" else [-1] * len(seqs)

    sim.compute = broken
    with pytest.raises(RuntimeError, match="failed.*ended.*released"):
        sim.step()
    sim.compute = compute
    pool_is_consistent(sim)
    assert all(seq.is_finished for seq in sim.seqs.values() if seq.block_table == [] and seq.num_completion_tokens < 5)
    after = sim.add("the cat sat on the rug", max_tokens=3)
    sim.run()
    assert after.is_finished and after.num_completion_tokens == 3
    pool_is_consistent(sim)
    assert sim.snapshot().plain() == engine_picture(sim, sim.snapshot())  # the replay ends the batch the same way
    failed = [e for s in range(sim.last_step + 1) for e in sim.events(s) if e.kind == "finish" and e.reason == "error"]
    assert failed and len(classify(sim.snapshot())) == 12


def test_a_failing_model_step_leaves_the_llm_usable():
    from blockviz import LLM, SamplingParams
    llm = LLM(kvcache_block_size=4, num_kvcache_blocks=16)
    runner = llm.model_runner
    run = runner.run
    calls = {"n": 0}

    def fail_on_second(seqs, is_prefill):
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("CUDA error: an illegal memory access (injected)")
        return run(seqs, is_prefill)

    runner.run = fail_on_second
    with pytest.raises(RuntimeError, match="injected"):
        llm.generate(["It is a truth universally acknowledged"], SamplingParams(temperature=0, max_tokens=4))
    runner.run = run
    pool_is_consistent(llm)
    fresh = LLM(kvcache_block_size=4, num_kvcache_blocks=16)
    params = SamplingParams(temperature=0, max_tokens=4)
    assert llm.generate(["A second request"], params) == fresh.generate(["A second request"], params)


def test_a_request_that_outgrows_the_pool_is_ended_and_the_engine_goes_on():
    """Without ignore_eos a request is admitted when its prompt fits; one that then grows past the
    whole pool would stop nano-vllm's scheduler for good (an assert). Here it is ended with an error."""
    from blockviz.config import Config
    from blockviz.engine.sequence import Sequence
    from blockviz.sampling_params import SamplingParams
    from blockviz.session import Session

    class NeverEos(Session):
        def compute(self, seqs, is_prefill):
            return [7] * len(seqs)

    session = NeverEos(Config(num_kvcache_blocks=2, kvcache_block_size=2, eos=0))
    big = session.add_sequence(Sequence([1, 2, 3], SamplingParams(max_tokens=8), block_size=2))
    with pytest.raises(RuntimeError, match="failed.*ended"):
        session.run()
    assert big.is_finished and not big.block_table
    pool_is_consistent(session)
    small = session.add_sequence(Sequence([1, 2], SamplingParams(max_tokens=2), block_size=2))
    session.run()
    assert small.is_finished and small.num_completion_tokens == 2
    assert session.snapshot().plain() == engine_picture(session, session.snapshot())
    ended = [e for s in range(session.last_step + 1) for e in session.events(s) if e.kind == "finish"]
    assert [(e.seq_id, e.reason) for e in ended] == [(big.seq_id, "error"), (small.seq_id, "length")]
