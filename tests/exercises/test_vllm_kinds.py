"""The real-engine kinds (lesson 10): vllm_cached and router_pick, on the vLLM recordings shipped in
lesson/data. Their answers come from predict.py and router.py; here the recordings are checked
against what the real vLLM reported, the hand procedure against predict.py, and each named
mistake against the learner's wrong answer it stands for."""
import json

import pytest
from hypothesis import given, settings, strategies as st

from blockviz import exercises
from blockviz.exercises.kinds import recorded
from blockviz.vllm import predict, router
from blockviz.vllm.index import phase_ends
from blockviz.vllm.watch import watch_until

SINGLE = recorded.recorded(recorded.SINGLE)
SOURCE = SINGLE.index.sources()[0]
PATHS = recorded.chains(SINGLE.index, SOURCE)
B = SINGLE.index.block_sizes[SOURCE]


def tokens(blocks) -> list[int]:
    return [t for r in blocks for t in r.token_ids]


def test_the_recorded_run_predicts_what_vllm_reported():
    """Every request of the recorded stream: the index replayed up to the step before it predicts
    exactly the cached tokens the real vLLM reported for it."""
    data = json.loads((recorded.DATA_DIR / f"{recorded.SINGLE}.json").read_text())
    assert data["meta"]["vllm"] and data["meta"]["recorded_at"]
    path = recorded.DATA_DIR / f"{recorded.SINGLE}.jsonl"
    for reply in data["replies"]:
        watch = watch_until(path, reply["step_before"])
        predicted = watch.cached_tokens(reply["prompt"]) if reply["step_before"] >= 0 else 0
        assert predicted == reply["reported"], reply["label"]
    assert any(r["reported"] for r in data["replies"]) and any(len(p) >= 3 for p in PATHS)


def test_the_recorded_kv_aware_routing_was_predicted_exactly():
    data = json.loads((recorded.DATA_DIR / f"{recorded.FLEET}.json").read_text())
    rows = data["routed"][router.KV_AWARE]
    assert [r["predicted"][r["instance"]] for r in rows] == [r["reported"] for r in rows]
    assert list(recorded.instances(recorded.FLEET).values()) == list(data["instances"].values())


def test_the_router_question_shows_the_caches_where_the_kv_aware_run_ended():
    index = recorded.load(recorded.DATA_DIR / f"{recorded.FLEET}.jsonl").index
    first, *rest = phase_ends(index)
    assert rest and index.step_info(first + 1).cleared and not index.step_info(first).cleared
    assert recorded.recorded(recorded.FLEET).last_step == first


prompt_parts = st.lists(st.tuples(st.sampled_from(range(len(PATHS))), st.integers(0, 6), st.integers(0, B + 5)),
                        min_size=1, max_size=3)


@settings(max_examples=60, deadline=None)
@given(prompt_parts, st.integers(0, 10**6))
def test_the_hand_procedure_is_vllms_lookup(parts, seed):
    """hand_cached without mistakes equals predict.cached_tokens on prompts spliced from cached
    chains, cut anywhere, with fresh tokens between."""
    from random import Random
    rng = Random(seed)
    prompt = []
    for path, blocks, extra in parts:
        prompt += tokens(PATHS[path][:blocks]) + recorded.fresh(rng, extra) if extra else tokens(PATHS[path][:blocks])
    prompt = prompt[:500] or recorded.fresh(rng, 3)
    assert recorded.hand_cached(SINGLE.index, SOURCE, prompt) == predict.cached_tokens(SINGLE.index, SOURCE, prompt)


def cached_question(prompt):
    return exercises.make("vllm_cached", recording=recorded.SINGLE, prompt=prompt)


def test_a_fully_cached_aligned_prompt_forgets_the_cap():
    path = max(PATHS, key=len)
    ex = cached_question(tokens(path))
    assert ex.answer() == (len(path) - 1) * B
    assert ex.check(len(path) * B).misconception == "cap"
    assert ex.check(len(path) - 1).misconception == "blocks"
    assert ex.check(ex.answer() + 5).misconception == "not_whole"


def test_the_shared_tokens_of_a_partly_matching_block_are_not_reused():
    path = max(PATHS, key=len)
    ex = cached_question(tokens(path[:1]) + list(path[1].token_ids[:10]) + recorded.fresh(__import__("random").Random(1), 9))
    assert ex.answer() == B
    result = ex.check(B + 10)
    assert result.misconception == "partial" and "10" not in result.message


def test_blocks_after_the_first_miss_do_not_count():
    from random import Random
    path = max(PATHS, key=len)
    ex = cached_question(recorded.fresh(Random(2), B) + tokens(path[1:]) + [5])
    assert ex.answer() == 0
    assert ex.check((len(path) - 1) * B).misconception == "past_miss"


def test_a_text_prompt_and_a_foreign_recording_are_refused():
    with pytest.raises(ValueError, match="prompt must be token ids"):
        exercises.make("vllm_cached", recording=recorded.SINGLE, prompt="hello")
    with pytest.raises(ValueError, match="recording must be one of"):
        exercises.make("vllm_cached", recording=recorded.FLEET, prompt=[1, 2])
    with pytest.raises(ValueError, match="recording must be one of"):
        exercises.make("router_pick", recording="../../etc/passwd", prompt=[1, 2])
    with pytest.raises(ValueError, match="token ids are 0.."):
        exercises.make("vllm_cached", recording=recorded.SINGLE, prompt=[10**6])


def test_router_pick_is_the_routers_choice_and_names_the_mistakes():
    named = recorded.instances(recorded.FLEET)
    index = recorded.recorded(recorded.FLEET).index
    seen = set()
    for seed in range(40):
        ex = exercises.make("router_pick", seed)
        assert str(ex.answer()) == router.choose(index, ex.params["prompt"], named).instance
        for wrong in (n for n in map(int, named) if n != ex.answer()):
            result = ex.check(wrong)
            assert not result.correct and result.message
            seen.add(result.misconception)
    assert {"past_miss", "biggest"} <= seen, seen


@pytest.mark.parametrize("text", ["2", "instance 2", "Instance #2", "实例 2", "2 号", "第2个实例"])
def test_router_pick_reads_an_instance_in_words(text):
    ex = next(e for e in (exercises.make("router_pick", s) for s in range(40)) if e.answer() == 2)
    assert ex.check(text).correct


def test_router_pick_refuses_an_instance_that_is_not_there():
    ex = exercises.make("router_pick", 1)
    for lang in ("en", "zh"):
        result = ex.check("3", lang)
        assert result.malformed and "1..2" in result.message


@pytest.mark.parametrize("kind", ["vllm_cached", "router_pick"])
def test_many_seeds_read_in_both_languages_and_accept_their_answer(kind):
    import re
    for seed in range(30):
        ex = exercises.make(kind, seed)
        for lang in ("en", "zh"):
            texts = [ex.prompt_in(lang), ex.hint(lang), ex.solution(lang)]
            assert not any(re.search(r"\b(?:vllm_cached|router_pick|recorded)\.\w", t) for t in texts), ex.id
            assert ex.check(ex.answer_text(lang), lang).correct, ex.id
        assert exercises.from_id(ex.id).params == ex.params
