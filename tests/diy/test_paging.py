"""Lesson b0's stage, "paging": a paged allocator without a cache, checked beside nano-vllm's engine with
its cache left out (blockviz/diy/cacheless.py). The reference is faithful (where the whole engine's cache
can never hit, the two differ only in the hash fields), the lesson's answer and the engine's own text
pass, and each mistake a learner commonly makes is caught and its method named."""
import inspect
import textwrap
from dataclasses import dataclass, replace

import pytest
from hypothesis import HealthCheck, assume, example, given, settings, strategies as st

from blockviz.diy import check, workload
from blockviz.diy.cacheless import CachelessBlockManager
from blockviz.diy.compare import differences
from blockviz.diy.lockstep import run_engine
from blockviz.diy.paging import PagedBlockManager
from blockviz.diy.stages import stage_named
from blockviz.diy.mutants import source, mutant
from blockviz.diy.workloads import LETTERS
from blockviz.engine.block_manager import BlockManager
from blockviz.limits import blocks_needed

SEEDS = st.integers(0, 100_000)
STAGE = stage_named("paging")
HASH_FIELDS = ("hash", "token_ids", "hash_to_block_id")
SLOW = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def never_hits(seed: int):
    """Workload `seed` where the whole engine's cache can never hit: each request's first token its
    own (so no block of one request has another's chain), and a pool too large to preempt (so no
    request comes back to its own freed blocks)."""
    w = workload(seed)
    requests = [replace(r, prompt=(LETTERS[i],) + tuple(r.prompt[1:])) for i, r in enumerate(w.workload.requests)]
    num_blocks = sum(blocks_needed(r.num_prompt_tokens + r.max_tokens, w.workload.block_size) for r in requests) + 1
    return replace(w, hash_values=None, workload=replace(w.workload, requests=tuple(requests), num_blocks=num_blocks,
                                                         free_order=None))


@SLOW
@given(SEEDS)
@example(4943)   # two requests of 1 prompt token + 1 to generate, blocks of 2: no block ever fills
def test_where_the_cache_cannot_hit_the_reference_is_the_whole_engine_but_its_hashes(seed):
    w = never_hits(seed)
    whole, cacheless = (run_engine(w, False, None, reference) for reference in (BlockManager, CachelessBlockManager))
    # only a workload that fills a block tells the two apart; were there none in any example, hypothesis
    # fails (Unsatisfiable): the test can fail
    assume(any(b.state.hash_to_block_id for b in whole.results))
    assert len(whole.results) == len(cacheless.results)
    for a, b in zip(cacheless.results, whole.results):
        assert [d for d in differences(a, b) if d.field not in HASH_FIELDS] == []
        assert all(block.hash == -1 and block.token_ids == () for block in a.state.blocks)
        assert a.state.hash_to_block_id == {}


def test_with_a_cache_the_engine_hits_where_the_reference_does_not():
    """The workloads share prefixes: the whole engine hits, the cacheless one takes fresh blocks."""
    hits = [any(call[0] == "can_allocate" and call[3] > 0 for r in run_engine(workload(s), False, None).results
                for call in r.calls) for s in range(10)]
    cacheless = [call[3] for s in range(10) for r in run_engine(workload(s), False, None, CachelessBlockManager).results
                 for call in r.calls if call[0] == "can_allocate"]
    assert any(hits) and set(cacheless) <= {0, -1}


def written_out(cls: type, methods) -> type:
    """`cls`'s methods, their source compiled again: learner code, traced as such."""
    namespace = {}
    body = "\n".join(textwrap.indent(textwrap.dedent(inspect.getsource(getattr(cls, m))), "    ") for m in methods)
    exec("from blockviz.engine.block_manager import BlockManager\nfrom blockviz.engine.sequence import Sequence\n"
         f"class Written(BlockManager):\n{body}", namespace)
    return namespace["Written"]


ANSWER = written_out(PagedBlockManager, STAGE.methods)
ENGINE = written_out(BlockManager, STAGE.methods)


@SLOW
@given(SEEDS)
def test_the_lessons_answer_and_the_engines_own_text_pass(seed):
    for cls in (ANSWER, ENGINE):
        report = check(cls, "paging", workloads=1, seed=seed)
        assert report.passed, str(report)
        assert report.missing == () and report.steps > 0


def test_the_answer_keeps_no_cache():
    text = "".join(source(m) for m in STAGE.methods)
    answer = "".join(textwrap.dedent(inspect.getsource(getattr(PagedBlockManager, m)))
                     for m in STAGE.methods)
    assert "hash" in text and "hash" not in answer and "compute_hash" not in answer


@dataclass(frozen=True)
class Mistake:
    cls: type
    method: str                  # the method the report must name as at fault
    fields: tuple[str, ...]      # the first differing step names one of these
    exercised: object            # seed -> True where the workload certainly exercises it


def prompts(seed: int):
    w = workload(seed).workload
    return w.block_size, [r.num_prompt_tokens for r in w.requests]


def has_exact_multiple(seed: int) -> bool:
    """A prompt of k × block_size tokens whose request is still running after its prefill step. One that
    ends in that step (max_tokens = 1) gives every block back at once: when the extra block was the
    last free one, the free queue ends that step as the engine's, and no step shows the mistake."""
    w = workload(seed).workload
    return any(r.num_prompt_tokens % w.block_size == 0 and r.max_tokens > 1 for r in w.requests)


def has_two_blocks(seed: int) -> bool:
    block_size, lengths = prompts(seed)
    return any(n > block_size for n in lengths)


MISTAKES = {
    "returns the blocks in forward order": Mistake(
        mutant("Forward", "deallocate", "reversed(seq.block_table)", "seq.block_table"), "deallocate",
        ("free_block_ids", "block_table"), has_two_blocks),
    "puts a freed block at the head of the free queue": Mistake(
        mutant("FreeAtHead", "_deallocate_block", "self.free_block_ids.append(block_id)",
                "self.free_block_ids.appendleft(block_id)"), "_deallocate_block", ("free_block_ids", "block_table"),
        has_two_blocks),  # two blocks freed at once come back in the other order
    "forgets to reset the block": Mistake(
        mutant("NoReset", "_allocate_block", "block.reset()", "pass"), "_allocate_block", ("ref_count",),
        lambda seed: True),
    "takes one block too many for a prompt of k × block_size tokens": Mistake(
        mutant("OneTooMany", "allocate", "range(num_cached_blocks, seq.num_blocks)",
                "range(num_cached_blocks, len(seq) // self.block_size + 1)"), "allocate",
        ("block_table", "free_block_ids", "used_block_ids"), has_exact_multiple),
    "takes one block too few for a prompt with a part-filled last block": Mistake(
        mutant("OneTooFew", "allocate", "range(num_cached_blocks, seq.num_blocks)",
                "range(num_cached_blocks, len(seq) // self.block_size)"), "allocate",
        ("block_table", "free_block_ids", "used_block_ids"), lambda seed: not all(
            n % prompts(seed)[0] == 0 for n in prompts(seed)[1])),
    "keeps the computed count after a request leaves": Mistake(
        mutant("KeepsCount", "deallocate", "seq.num_cached_tokens = 0", "pass"), "deallocate",
        ("num_cached_tokens",), lambda seed: True),
    "pops the free queue's tail": Mistake(
        mutant("PopTail", "_allocate_block", "self.free_block_ids.popleft()", "self.free_block_ids.pop()"),
        "_allocate_block", ("free_block_ids", "block_table"), lambda seed: workload(seed).workload.num_blocks > 1),
}


@pytest.mark.parametrize("name", MISTAKES)
def test_each_mistake_is_caught_and_its_method_named(name):
    mistake = MISTAKES[name]
    report = check(mistake.cls, "paging", workloads=40)
    assert not report.passed and report.fault is None, str(report)
    assert set(mistake.fields) & set(report.fields), str(report)
    assert report.divergence.culprit is not None and report.divergence.culprit.method == mistake.method, str(report)
    assert f"The method at fault: {mistake.method}" in str(report)
    assert report.mine is not None and len(report.mine.frames) == report.step + 1


@pytest.mark.parametrize("name", MISTAKES)
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS)
def test_a_workload_that_exercises_a_mistake_catches_it(name, seed):
    mistake = MISTAKES[name]
    if mistake.exercised(seed):
        report = check(mistake.cls, "paging", workloads=1, seed=seed)
        assert not report.passed, f"{name}: seed {seed}\n{report}"


def test_one_block_too_many_can_leave_no_trace():
    """Seed 272: block size 3, a 6-token prompt with max_tokens 1 admitted when its 2 blocks and one more
    are all that is free. The extra block is taken and given back in the same step, to the same place
    in the free queue: every step's pool is the engine's, so the check passes, and has_exact_multiple
    does not count this workload as one that exercises the mistake."""
    mistake = MISTAKES["takes one block too many for a prompt of k × block_size tokens"]
    assert check(mistake.cls, "paging", workloads=1, seed=272).passed
    assert not mistake.exercised(272)


def test_the_stage_says_no_weak_hash():
    """The paging stage runs its workloads with the real hash: a weak one would have nothing to collide in."""
    seed = next(s for s in range(100) if workload(s).hash_values is not None)
    report = check(MISTAKES["forgets to reset the block"].cls, "paging", workloads=1, seed=seed)
    assert report.divergence.workload.hash_values is None and "weak hash" not in str(report)
