"""Block policies by name: the registry, the one hook every engine builds through, the fast free
queue chosen by pool size, and adding a policy (a class and one registry line)."""
from collections import deque

import pytest

from blockviz import policies
from blockviz.config import Config
from blockviz.engine.block_manager import BlockManager
from blockviz.policies import OrderedFreeQueue, Policy
from blockviz.policies.scheduler import PolicyScheduler
from blockviz.policies.vllm import BLOCK_RULES, VllmBlockManager, with_rules
from blockviz.sim import Simulator
from blockviz.recording.io import load_trace


def test_names_and_classes():
    assert policies.names() == ("nano-vllm", "vllm", "sglang")
    assert policies.get("nano-vllm").block_manager is BlockManager   # the engine's own, untouched
    assert policies.get("vllm").block_manager is VllmBlockManager
    assert VllmBlockManager.rules == frozenset(BLOCK_RULES)
    assert "vllm/v1/core/block_pool.py" in policies.get("vllm").follows
    with pytest.raises(ValueError, match="policy must be one of 'nano-vllm', 'vllm', 'sglang', got 'lru'"):
        policies.get("lru")


def test_block_manager_by_name_and_its_free_queue():
    small = policies.block_manager("vllm", 16, 4)
    assert type(small) is VllmBlockManager and isinstance(small.free_block_ids, deque)
    big = policies.block_manager("nano-vllm", policies.FAST_FREE_QUEUE_BLOCKS, 4)
    assert type(big) is BlockManager and isinstance(big.free_block_ids, OrderedFreeQueue)
    assert list(big.free_block_ids) == list(range(policies.FAST_FREE_QUEUE_BLOCKS))
    assert isinstance(policies.block_manager("vllm", 16, 4, fast_free_queue=True).free_block_ids, OrderedFreeQueue)
    assert isinstance(policies.block_manager("vllm", 10_000, 4, fast_free_queue=False).free_block_ids, deque)


def test_every_engine_builds_its_block_manager_in_the_hook():
    config = Config(num_kvcache_blocks=8, kvcache_block_size=4)
    assert type(PolicyScheduler(config, "vllm").block_manager) is VllmBlockManager
    sim = Simulator(num_blocks=8, block_size=4, policy="vllm")
    assert sim.policy.name == "vllm" and type(sim.scheduler.block_manager) is VllmBlockManager
    assert type(Simulator(num_blocks=8, block_size=4).scheduler.block_manager) is BlockManager
    with pytest.raises(ValueError, match="policy must be one of"):
        Simulator(num_blocks=8, block_size=4, policy="fifo")


def test_with_rules_gives_one_class_per_subset():
    assert with_rules(frozenset(BLOCK_RULES)) is VllmBlockManager
    none = with_rules(frozenset())
    assert none is with_rules(frozenset()) and none.rules == frozenset() and issubclass(none, VllmBlockManager)
    with pytest.raises(ValueError, match="no BlockManager variant for rules"):
        with_rules(frozenset({"running_cap"}))


class NewestFirst(BlockManager):
    """A policy made up for the test: a freed block is reused first (the free queue as a stack)."""

    def _deallocate_block(self, block_id: int):
        super()._deallocate_block(block_id)
        self.free_block_ids.remove(block_id)
        self.free_block_ids.appendleft(block_id)


def test_adding_a_policy_is_a_class_and_one_registry_line(monkeypatch, tmp_path):
    monkeypatch.setitem(policies.REGISTRY, "newest-first", Policy("newest-first", NewestFirst, "this test"))
    assert "newest-first" in policies.names()
    sim = Simulator(num_blocks=8, block_size=2, policy="newest-first")
    sim.add([1, 2, 3], max_tokens=2)
    sim.run()
    assert list(sim.scheduler.block_manager.free_block_ids)[:2] == [0, 1]   # freed last-first: head first
    # recorded, saved and loaded under the same policy, every picture equal to the live engine's
    assert list(sim.snapshot().free_block_ids) == list(sim.scheduler.block_manager.free_block_ids)
    sim.save(tmp_path / "t.jsonl")
    loaded = load_trace(tmp_path / "t.jsonl")
    assert loaded.policy.name == "newest-first"
    assert [loaded.snapshot(i).plain() for i in range(sim.last_step + 1)] == \
        [sim.snapshot(i).plain() for i in range(sim.last_step + 1)]
