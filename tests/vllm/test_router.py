"""The KV-aware router and round-robin on synthetic events: the longest cached prefix wins, the
tie rule as stated, the predictions equal what each engine's cache would reuse, and on a chat
stream KV-aware routing reuses at least as much as round-robin."""
import pytest
from hypothesis import given, settings, strategies as st

from blockviz.i18n import t
from blockviz.vllm import router
from blockviz.vllm.index import PrefixIndex, StepInfo
from blockviz.vllm.watch import Watch
from blockviz.vllm.wire import cleared, encode_batch, stored

from tests.vllm.synthetic import ToyCache

B = 4
AB = {"A": "src-a", "B": "src-b"}


def step(index: PrefixIndex, source: str, *events) -> StepInfo:
    return index.apply(StepInfo(0, source, index.next_step, 0.0, 0.0, b""), list(events))


def two_engines() -> PrefixIndex:
    """A holds one block of the prompt 0..11, B two."""
    index = PrefixIndex()
    step(index, "src-a", stored([1], None, [0, 1, 2, 3], B))
    step(index, "src-b", stored([7, 8], None, list(range(8)), B))
    return index


def test_the_instance_with_the_longest_cached_prefix_is_chosen():
    choice = router.choose(two_engines(), list(range(12)), AB)
    assert (choice.instance, choice.cached_tokens, choice.reason) == ("B", {"A": 4, "B": 8}, router.LONGEST)
    assert choice.predicted == 8 and choice.best == 8 and choice.policy == router.KV_AWARE
    assert router.explain(choice) == t("router.why.longest", name="B", n=8, all="A 4, B 8")


def test_the_last_token_is_never_counted_cached():
    # 8 tokens: B holds both blocks, but vLLM recomputes the last token, so only one block counts
    choice = router.choose(two_engines(), list(range(8)), AB)
    assert choice.cached_tokens == {"A": 4, "B": 4} and choice.tied == ("A", "B")


def test_ties_go_to_the_fewest_requests_then_to_instance_order():
    index = two_engines()
    by_load = router.choose(index, list(range(8)), AB, load={"A": 3, "B": 1})
    assert (by_load.instance, by_load.reason) == ("B", router.TIE_LOAD)
    by_order = router.choose(index, list(range(8)), AB, load={"A": 2, "B": 2})
    assert (by_order.instance, by_order.reason) == ("A", router.TIE_ORDER)
    assert router.choose(index, list(range(8)), {"B": "src-b", "A": "src-a"}).instance == "B"   # order given
    assert "A" in router.explain(by_order) and "(2)" in router.explain(by_order)


def test_an_unseen_prompt_goes_to_the_least_loaded_instance():
    choice = router.choose(two_engines(), [99] * 9, AB, load={"A": 1})
    assert (choice.instance, choice.best, choice.reason) == ("B", 0, router.TIE_LOAD)
    assert router.explain(choice, "zh") == t("router.why.cold_load", "zh", name="B", load=0)


def test_a_higher_load_never_beats_a_longer_prefix():
    choice = router.choose(two_engines(), list(range(12)), AB, load={"A": 0, "B": 100})
    assert choice.instance == "B"


def test_round_robin_takes_turns_whatever_is_cached():
    index = two_engines()
    turns = [router.round_robin(index, list(range(12)), n, AB) for n in range(4)]
    assert [c.instance for c in turns] == ["A", "B", "A", "B"]
    assert turns[0].predicted == 4 and turns[1].predicted == 8 and turns[0].reason == router.ROUND_ROBIN
    assert "A" in router.explain(turns[0], "zh")


def test_instances_default_to_every_source_and_an_empty_index_says_so():
    index = two_engines()
    assert router.instances_of(index) == {"src-a": "src-a", "src-b": "src-b"}
    assert router.choose(index, list(range(12))).instance == "src-b"
    with pytest.raises(ValueError, match="no instances"):
        router.choose(PrefixIndex(), [1, 2, 3])
    assert router.cached_per_instance(PrefixIndex(), [1, 2, 3], {"A": "never-seen"}) == {"A": 0}


def test_a_cleared_instance_holds_nothing():
    index = two_engines()
    step(index, "src-b", cleared())
    assert router.choose(index, list(range(12)), AB).instance == "A"


def test_a_watch_is_read_after_what_it_received():
    watch = Watch(["tcp://127.0.0.1:1", "tcp://127.0.0.1:2"], subscribe=False, api=None)
    watch.batch("tcp://127.0.0.1:2", 0, encode_batch(0.0, [stored([5], None, [0, 1, 2, 3], B)]), "live", 0)
    choice = router.choose(watch, list(range(6)), {"A": "tcp://127.0.0.1:1", "B": "tcp://127.0.0.1:2"})
    assert (choice.instance, choice.cached_tokens) == ("B", {"A": 0, "B": 4})


def chat_prompts(users: int, turns: int) -> list[list[int]]:
    """Users sharing one of two system prompts, taking turns; each turn extends the user's history."""
    system = [[1000 + i for i in range(3 * B)], [2000 + i for i in range(3 * B)]]
    history = [list(system[u % 2]) for u in range(users)]
    out = []
    for turn in range(turns):
        for u in range(users):
            history[u] += [100 * u + 10 * turn + k for k in range(B + 1)]
            out.append(list(history[u]))
    return out


def run(prompts: list[list[int]], policy: str, capacity: int, instances: int) -> tuple[int, list[tuple[int, int]]]:
    """Route each prompt, run it on a ToyCache per instance; (cached tokens in all, (predicted, real) per prompt)."""
    names = {chr(65 + i): f"src-{i}" for i in range(instances)}
    caches = {name: ToyCache(capacity, B) for name in names}
    index, sent, total, pairs = PrefixIndex(), {name: 0 for name in names}, 0, []
    for n, prompt in enumerate(prompts):
        choice = (router.choose(index, prompt, names, sent) if policy == router.KV_AWARE
                  else router.round_robin(index, prompt, n, names))
        cache = caches[choice.instance]
        real = cache.hit_blocks(prompt) * B
        pairs.append((choice.predicted, real))
        total += real
        sent[choice.instance] += 1
        step(index, names[choice.instance], *cache.run(prompt))
    return total, pairs


def test_on_a_chat_stream_kv_aware_reuses_more_than_round_robin():
    prompts = chat_prompts(users=3, turns=4)
    kv, kv_pairs = run(prompts, router.KV_AWARE, capacity=40, instances=2)
    rr, rr_pairs = run(prompts, router.ROUND_ROBIN, capacity=40, instances=2)
    assert all(p == r for p, r in kv_pairs + rr_pairs)
    assert kv > rr > 0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(0, 2), min_size=1, max_size=14), min_size=1, max_size=25),
       st.integers(1, 6), st.integers(1, 3), st.sampled_from([router.KV_AWARE, router.ROUND_ROBIN]))
def test_the_chosen_instance_reuses_what_was_predicted_and_no_other_holds_more(prompts, capacity, instances, policy):
    names = {chr(65 + i): f"src-{i}" for i in range(instances)}
    caches = {name: ToyCache(capacity, B) for name in names}
    index = PrefixIndex()
    for n, prompt in enumerate(prompts):
        choice = (router.choose(index, prompt, names) if policy == router.KV_AWARE
                  else router.round_robin(index, prompt, n, names))
        assert choice.cached_tokens == {name: caches[name].hit_blocks(prompt) * B for name in names}
        if policy == router.KV_AWARE:
            assert choice.predicted == choice.best and choice.instance in choice.tied
        step(index, names[choice.instance], *caches[choice.instance].run(prompt))
