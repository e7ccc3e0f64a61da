"""Every kind, many seeds: the engine's answer is accepted, perturbed answers are rejected with a
message, malformed input gets a message (never an exception), and no prompt or failure message
shows the answer."""
import re

import pytest

from blockviz import exercises
from blockviz.i18n import LANGS
from blockviz.exercises.kinds.pool import STATE_VOCAB
from blockviz.exercises.kinds.prefix import admission, hand_admit, hand_cost, hand_walk
from blockviz.exercises.setups import encode

SEEDS = range(20)
KINDS = exercises.kinds()
STATES = sorted(set(STATE_VOCAB.values()))
OTHER_CODE = {"U": "F", "F": "U", "M": "-", "-": "M"}


def perturbed(kind: str, answer) -> list:
    """Wrong answers of the right shape."""
    if kind == "next_block":
        block, label = answer
        return [(block + 1, label), (block, "h1" if label == "none" else "none")]
    if kind == "preemption":
        victims, blocks = answer
        wrong = [(victims, blocks + [99])]
        if len(blocks) > 1:
            wrong.append((victims, blocks[::-1]))
        return wrong
    if kind == "decode_block":
        return [answer[1:] if answer else ["A"]]
    if isinstance(answer, int):
        return [answer + 1, answer - 1 if answer != 0 else 2]
    first = answer[0]
    if isinstance(first, int):
        wrong = [[first + 1] + answer[1:]]
        if answer != answer[::-1]:
            wrong.append(answer[::-1])
        return wrong
    if kind == "hit_pattern":
        return [[OTHER_CODE[first]] + answer[1:]]
    return [[next(s for s in STATES if s != first)] + answer[1:]]


def multi_part(text: str) -> bool:
    return "," in text or ":" in text


def shows(text: str, message: str) -> bool:
    return bool(re.search(rf"(?<![\w-]){re.escape(text)}(?![\w-])", message))


@pytest.fixture(scope="module", params=KINDS)
def instances(request):
    return [exercises.make(request.param, seed) for seed in SEEDS]


def test_kinds_are_listed():
    assert len(KINDS) >= 16
    assert {"slot", "slot_mapping", "block_table", "ref_counts", "can_allocate", "admission_cost", "decode_block",
            "next_block", "pool_states", "hit_pattern", "wasted_slots", "preemption", "kv_bytes", "lifetime",
            "prefill_batch", "decode_mask"} <= set(KINDS)


def test_seeded_instances_are_reproducible_and_shareable(instances):
    for ex in instances:
        again = exercises.from_id(ex.id)
        assert again.params == ex.params and again.answer() == ex.answer()
        assert ex.id == f"{ex.kind.name}-{ex.seed}"
    explicit = exercises.make(instances[0].kind.name, **instances[0].params)  # the same instance, by params
    assert explicit.id.startswith(f"{explicit.kind.name}:")
    assert exercises.from_id(explicit.id).answer() == explicit.answer() == instances[0].answer()


def test_engine_answer_is_accepted(instances):
    for ex in instances:
        for lang in LANGS:
            text = ex.answer_text(lang)
            assert ex.check(text, lang).correct, (ex.id, lang, text)
            zh_punct = text.replace(", ", "，").replace(": ", "：")
            assert ex.check(f"【{zh_punct}】", lang).correct, (ex.id, zh_punct)
        assert ex.check(ex.answer()).correct, ex.id  # as a Python value


def test_perturbed_answers_are_rejected_without_showing_the_answer(instances):
    for ex in instances:
        text = ex.answer_text("en")
        for wrong in perturbed(ex.kind.name, ex.answer()):
            for lang in LANGS:
                result = ex.check(wrong, lang)
                assert not result.correct, (ex.id, wrong)
                assert result.message and "Traceback" not in result.message
                if multi_part(text):
                    assert not shows(ex.answer_text(lang), result.message), (ex.id, wrong, result.message)


MALFORMED = ["", "   ", "???", "[", "一二三", "1.5", None, 1.5, {"a": 1}, [None], "h1 h2 h3", "9" * 40]


def test_malformed_answers_get_messages(instances):
    for ex in instances[:4]:
        for bad in MALFORMED:
            for lang in LANGS:
                result = ex.check(bad, lang)
                assert not result.correct and result.message, (ex.id, bad)


def test_prompts_never_show_the_answer(instances):
    for ex in instances:
        assert not exercises.shows_answer(ex), ex.id
        for lang in LANGS:
            prompt = ex.prompt_in(lang)
            assert prompt and ex.kind.name in prompt
            if multi_part(ex.answer_text(lang)):
                assert ex.answer_text(lang) not in prompt


def test_hint_and_solution_in_both_languages(instances):
    ex = instances[0]
    for lang in LANGS:
        assert ex.hint(lang) and ex.solution(lang)
        assert not shows(ex.answer_text(lang), ex.hint(lang)) or not multi_part(ex.answer_text(lang))
    assert ex.answer_text("en").split(",")[0].strip("*") in ex.solution("en")


@pytest.mark.parametrize("kind", ["hit_pattern", "can_allocate", "block_table", "admission_cost"])
def test_hand_procedure_agrees_with_the_engine(kind):
    """The solution's procedure (hand_walk / hand_admit / hand_cost without mistakes) gives the
    engine's answers: probe_chain, can_allocate and a real admission step."""
    for seed in range(20):
        ex = exercises.make(kind, seed)
        adm = admission(ex.params)
        bm = adm.before.bm
        codes, ids = hand_walk(bm, encode(ex.params["new"]), ex.params["block_size"])
        assert codes == adm.codes
        need = hand_cost(codes)
        hits = sum(c in "UF" for c in codes)
        assert adm.can_allocate == (-1 if need > len(bm.free_block_ids) else hits)
        if adm.table is not None:
            assert hand_admit(bm, codes, ids) == adm.table
            assert need == adm.cost


def test_unknown_kind_and_bad_params_are_clear_errors():
    with pytest.raises(ValueError, match="unknown exercise kind"):
        exercises.make("nope")
    with pytest.raises(ValueError, match="consecutive"):
        exercises.make("slot_mapping", block_size=4, block_table=[5, 2, 7], positions=[3, 5])
    with pytest.raises(ValueError, match="outside"):
        exercises.make("slot", block_size=4, block_table=[5, 2, 7], position=12)
    with pytest.raises(ValueError, match="looks like"):
        exercises.from_id("slot")


def test_random_seed_when_none_given():
    ex = exercises.make("slot")
    assert ex.seed is not None and exercises.from_id(ex.id).answer() == ex.answer()


@pytest.mark.parametrize("kind", ["kv_bytes", "lifetime", "prefill_batch", "decode_mask"])
def test_many_seeds_never_raise_and_every_string_is_found(kind):
    for seed in range(100):
        ex = exercises.make(kind, seed)
        assert not exercises.shows_answer(ex), ex.id
        for lang in LANGS:
            texts = [ex.prompt_in(lang), ex.hint(lang), ex.solution(lang)]
            assert not any(re.search(rf"\b{kind}\.\w", text) for text in texts), ex.id  # a missing string shows its key
            assert ex.check(ex.answer_text(lang), lang).correct, ex.id


def test_the_setup_story_counts_one_token_in_the_singular():
    from blockviz.exercises.kinds.common import setup_story
    params = {"block_size": 4, "num_blocks": 8, "setup": [["add", "A", "a", 2], ["add", "B", "bc", 2], ["step", 1]]}
    story = setup_story(params, "en")
    assert "`a` (1 token)" in story and "`bc` (2 tokens)" in story
    assert "A (1 token computed), B (2 tokens computed)" in story
    assert "（1 个 token）" in setup_story(params, "zh")
