"""The "vllm" policy: its rules change what nano-vllm decides (so a test can see them), it decides
as the lab's rules always did, and a run under it is recorded exactly (events, pictures, files,
keyframes)."""
import random

from hypothesis import HealthCheck, given, settings, strategies as st

from blockviz.engine.block_manager import BlockManager
from blockviz.engine.sequence import Sequence
from blockviz.policies import Policy
from blockviz.policies.vllm import BLOCK_RULES, FREE_UNHASHED_FIRST, REGISTER_WHEN_SCHEDULED, with_rules
from blockviz.sim import Simulator
from blockviz.recording import events as ev
from blockviz.recording.io import load_trace
from tests.recording.reference import engine_picture
from tests.recording.test_instrumented import InstrumentationMachine
from tests.recording.test_keyframe import without_finished_before


class VllmInstrumentationMachine(InstrumentationMachine):
    POLICY = "vllm"


VllmInstrumentationMachine.TestCase.settings = settings(max_examples=150, stateful_step_count=50, deadline=None,
                                                        suppress_health_check=[HealthCheck.too_slow])
test_a_recording_under_vllms_rules_never_changes_a_result = VllmInstrumentationMachine.TestCase


class LabRulesBeforeTheMove(BlockManager):
    """The policy lab's RuleBlockManager as it was (blockviz/vllm/lab/variants.py) before it moved,
    kept as the reference the moved policy must decide exactly as."""

    def __init__(self, num_blocks: int, block_size: int, rules=frozenset(BLOCK_RULES)):
        super().__init__(num_blocks, block_size)
        self.rules, self.scheduled = frozenset(rules), None

    def can_allocate(self, seq):
        if self.scheduled is not None:
            self.hash_blocks(self.scheduled)
            self.scheduled = None
        return super().can_allocate(seq)

    def allocate(self, seq, num_cached_blocks):
        super().allocate(seq, num_cached_blocks)
        if REGISTER_WHEN_SCHEDULED in self.rules:
            self.scheduled = seq

    def hash_blocks(self, seq):
        if seq is self.scheduled:
            self.scheduled = None
        super().hash_blocks(seq)

    def deallocate(self, seq):
        before = len(self.free_block_ids)
        super().deallocate(seq)
        if FREE_UNHASHED_FIRST in self.rules:
            freed = [self.free_block_ids.pop() for _ in range(len(self.free_block_ids) - before)][::-1]
            self.free_block_ids.extendleft(reversed([b for b in freed if self.blocks[b].hash == -1]))
            self.free_block_ids.extend(b for b in freed if self.blocks[b].hash != -1)


def busy(seed: int, policy, num_requests: int = 24, **options) -> Simulator:
    """Shared prefixes, a small budget and pool (tests/recording/test_recorder.py's): chunks, hits, preemptions."""
    rng = random.Random(seed)
    sim = Simulator(num_blocks=10, block_size=2, max_num_batched_tokens=5, max_num_seqs=3, policy=policy, **options)
    prefixes = [[1, 2, 3, 1, 2], [3, 3, 1], [2, 1, 2, 1, 2, 1]]
    for _ in range(num_requests):
        prompt = rng.choice(prefixes)[:rng.randint(1, 6)] + [rng.randint(1, 3) for _ in range(rng.randint(0, 3))]
        sim.add(prompt, max_tokens=rng.randint(1, 6), script=[rng.choice([0, 1, 2, 3]) for _ in range(6)])
    return sim


def pool(sim: Simulator) -> tuple:
    bm = sim.scheduler.block_manager
    return ([(b.ref_count, b.hash, list(b.token_ids)) for b in bm.blocks], list(bm.free_block_ids),
            dict(bm.hash_to_block_id), [(s.num_cached_tokens, list(s.block_table)) for s in sim.seqs.values()])


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from([frozenset(), frozenset({FREE_UNHASHED_FIRST}),
                                                frozenset({REGISTER_WHEN_SCHEDULED}), frozenset(BLOCK_RULES)]))
def test_the_policy_decides_as_the_lab_rules_did(seed, rules):
    moved = busy(seed, Policy("moved", with_rules(rules), "test"), record=False)
    before = busy(seed, Policy("before", type("Before", (LabRulesBeforeTheMove,), {
        "__init__": lambda self, n, b: LabRulesBeforeTheMove.__init__(self, n, b, rules)}), "test"), record=False)
    while not moved.is_finished():
        moved.advance()
        before.advance()
        assert pool(moved) == pool(before)
    assert before.is_finished()


def test_the_rules_make_a_difference():
    differ, heads = 0, 0
    for seed in range(10):
        nano, vllm = busy(seed, "nano-vllm", record=False), busy(seed, "vllm")
        while not (nano.is_finished() or vllm.is_finished()):
            nano.advance()
            vllm.advance()
            differ += pool(nano) != pool(vllm)
        heads += sum(isinstance(e, ev.FreedToHead) for f in vllm.frames for e in f.events)
    assert differ > 0 and heads > 0   # the pools part, and the recordings saw blocks freed to the head


def test_every_recorded_picture_under_vllm_equals_the_live_engine(tmp_path):
    for seed in range(6):
        sim = busy(seed, "vllm", record_to=tmp_path / f"{seed}.jsonl")
        sim.trace_writer().keyframe_every = 5
        kinds, saved = set(), [sim.snapshot(0).plain()]
        while not sim.is_finished():
            frame = sim.step()
            kinds |= {e.kind for e in frame.events}
            assert frame.snapshot.plain() == engine_picture(sim, frame.snapshot)
            saved.append(frame.snapshot.plain())
        sim.close()
        assert [f.snapshot.plain() for f in sim.frames] == saved
        loaded = load_trace(tmp_path / f"{seed}.jsonl")   # a file replays under its policy, from keyframes too
        assert loaded.policy.name == "vllm" and loaded.keyframe_steps
        loaded.frames.JUMP = 1
        for step in reversed(range(len(saved))):
            loaded.frames.cache.clear()
            frame = loaded.frames[step]
            resumed = loaded.frames.resumed_at
            assert frame.snapshot.plain() == without_finished_before(saved[step], None if resumed is None else saved[resumed])
            assert frame.events == sim.events(step)
