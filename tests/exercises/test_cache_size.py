"""cache_size: the answer is the trace's curve and the model's KV bytes, checked here another way
(the two tiers through Curve.tiers, GiB by the model's own gib); the known mistakes are diagnosed."""
import math

import pytest

from blockviz import exercises, traffic
from blockviz.exercises.kinds.cache_size import GRID
from blockviz.i18n import LANGS
from blockviz.traffic.units import model


def reaching(trace: str, share: int, gpu: int | None, write_through: bool = True) -> int:
    c = traffic.curve(traffic.load(trace))
    target = share / 100 * c.max_hit_rate
    return next(p for p in GRID if c.tiers(gpu or 0, p, write_through=write_through).hit_rate >= target)


@pytest.mark.parametrize("seed", range(8))
def test_the_answer_is_the_smallest_pool_of_the_table_made_whole_gib(seed):
    ex = exercises.make("cache_size", seed)
    p = ex.params
    pool = reaching(p["trace"], p["share"], p.get("gpu"))
    assert ex.answer() == math.ceil(model(p["model"]).gib(pool))
    for lang in LANGS:
        assert ex.check(f"{ex.answer()} GiB", lang).correct
        assert "cache_size." not in ex.prompt_in(lang) + ex.solution(lang) + ex.hint(lang)


def test_adding_the_pools_as_a_victim_cache_would_is_named():
    ex = exercises.make("cache_size", trace="conversation", model="qwen3-8b", ask="cpu_gib", share=75, gpu=5_000_000)
    victim = reaching("conversation", 75, 5_000_000, write_through=False)
    wrong = math.ceil(model("qwen3-8b").gib(victim))
    result = ex.check(str(wrong))
    assert not result.correct and "victim cache" in result.message


def test_a_gpu_pool_that_already_reaches_the_target_is_refused():
    with pytest.raises(ValueError, match="already reaches"):
        exercises.make("cache_size", trace="conversation", model="qwen3-8b", ask="cpu_gib", share=25,
                       gpu=100_000_000)
