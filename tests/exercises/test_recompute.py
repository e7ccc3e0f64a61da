"""recompute: the answer is what nano-vllm's engine and SGLang's radix tree each recompute (designs.serve),
checked here against the solution's procedure from the tokens alone; the known mistakes are named."""
from random import Random

import pytest

from blockviz import exercises
from blockviz.exercises.kinds.recompute import Recompute, cached_runs, generated, hand_hit
from blockviz.exercises.sets import LAST_BLOCK
from blockviz.exercises.setups import encode
from blockviz.i18n import LANGS
from blockviz.sim import Simulator


@pytest.mark.parametrize("seed", range(40))
def test_the_hand_procedure_gives_both_engines_answers(seed):
    ex = exercises.make("recompute", seed)
    p = ex.params
    new = encode(p["new"])
    assert ex.answer() == [len(new) - hand_hit(new, cached_runs(p, unit), unit)
                           for unit in (p["block_size"], p["page_size"])]
    for lang in LANGS:
        assert "recompute." not in ex.prompt_in(lang) + ex.solution(lang) + ex.hint(lang)


def test_the_generated_tokens_are_the_simulators():
    sim = Simulator(num_blocks=8, block_size=4, record=False, eos=-1)
    seq = sim.add("the_cat_sat", max_tokens=5)
    sim.run()
    assert seq.completion_token_ids == generated("the_cat_sat", 5)


def test_the_last_block_question_and_its_mistakes():
    ex = exercises.make("recompute", **LAST_BLOCK)
    assert ex.answer() == [4, 1]   # nano-vllm recomputes the aligned prompt's last block, SGLang (page 1) one token
    for wrong, name in [("0, 0", "no_cap"), ("1, 4", "swapped"), ("4, 4", "same_unit"), ("4, 7", "hits")]:
        for lang in LANGS:
            result = ex.check(wrong, lang)
            assert not result.correct and result.misconception == name, (wrong, result)
    assert "nano-vllm's number is right" in ex.check("4, 2").message


def test_generated_tokens_cached_and_the_last_one_not():
    # A "abcd" generates "abcd": "abcd|abc" has KV; R = "abcdabcX" matches 7 tokens
    ex = exercises.make("recompute", block_size=4, page_size=1, max_tokens=4, requests=["abcd"], new="abcdabcX")
    assert ex.answer() == [4, 1]
    result = ex.check("4, 4")   # the prompt alone cached: 4 tokens match, in either unit
    assert result.misconception == "prompts_only" and "Generated tokens are cached too" in result.message


def test_same_pages_recompute_the_same():
    for seed in range(40):
        ex = exercises.make("recompute", seed)
        if ex.params["page_size"] == ex.params["block_size"]:
            assert ex.answer()[0] == ex.answer()[1], ex.id


def test_a_page_that_does_not_divide_the_block_is_refused():
    with pytest.raises(ValueError, match="page_size must divide block_size"):
        exercises.make("recompute", block_size=4, page_size=3, max_tokens=2, requests=["abcd"], new="abcde")


def test_params_given_without_a_seed_must_all_be_there():
    params = Recompute().generate(Random(0))
    del params["block_size"]
    with pytest.raises(ValueError, match="recompute needs block_size"):
        exercises.make("recompute", **params)
