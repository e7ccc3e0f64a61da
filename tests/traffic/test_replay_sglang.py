"""The traffic replay under policy "sglang" on the head of each shipped trace: never more than
SGLang's own tree finds with nothing evicted, that bound equal to nano-vllm's at page size 512,
with no eviction the same tokens hit as nano-vllm's hash chain, and why no one-pass curve exists
for the tree."""
from array import array

import numpy as np
import pytest

from blockviz import traffic
from blockviz.hits import AdmissionWatch
from blockviz.radix.base_prefix_cache import InsertParams, MatchPrefixParams
from blockviz.radix.radix_cache import RadixCache, RadixKey
from blockviz.sim import Simulator
from blockviz.traffic.lengths import output_length
from blockviz.traffic.replay import request_lengths
from blockviz.traffic.tokens import OUTPUT_TOKEN, prompt_tokens

HEAD = 120


def unbounded_tree_hits(trace, page_size: int) -> np.ndarray:
    """Per request, in trace order, one at a time: the prompt tokens an SGLang tree that never evicts
    matches (the prompt but its last token, page-aligned), each request then inserting every token
    with KV (prompt and generated but the last), as a finished request does."""
    tree = RadixCache.create_simulated(page_size=page_size)
    hits = []
    for i in range(len(trace)):
        key = array("q", prompt_tokens(trace.ids(i), int(trace.input_lengths[i])))
        hits.append(tree.match_prefix(MatchPrefixParams(key=RadixKey(key[:-1]))).device_prefix_len)
        key.extend([OUTPUT_TOKEN] * (output_length(int(trace.output_lengths[i])) - 1))
        tree.insert(InsertParams(key=RadixKey(key), value=array("q", range(len(key)))))
    return np.array(hits)


@pytest.fixture(scope="module", params=list(traffic.SHIPPED))
def head(request):
    return traffic.load(request.param).head(HEAD)


def test_the_unbounded_tree_at_page_512_is_nano_vllms_bound(head):
    """Matching the prompt but its last token, page-aligned, leaves out the same last block that
    nano-vllm never probes; generated tokens (OUTPUT_TOKEN) never match a later prompt."""
    hits = unbounded_tree_hits(head, 512)
    assert hits.sum() / head.prompt_lengths().sum() == pytest.approx(traffic.curve(head).max_hit_rate, abs=1e-12)
    assert hits.sum() > 0


def test_page_size_one_matches_more_than_whole_pages(head):
    assert unbounded_tree_hits(head, 1).sum() >= unbounded_tree_hits(head, 512).sum()


@pytest.mark.parametrize("pool", [300_000, 3_000_000])
def test_a_replay_never_hits_more_than_the_unbounded_tree(head, pool):
    r = traffic.replay(head, pool, policy="sglang")
    bound = unbounded_tree_hits(head, 512)
    served = ~r.refused
    assert (r.cached_tokens[served] <= bound[served]).all()   # it can hit only what came before it
    assert (r.cached_tokens % 512 == 0).all() and (r.cached_tokens < r.prompt_tokens).all()
    assert r.hit_rate <= head.theoretical_hit_rate()


def test_with_no_eviction_the_tree_hits_what_the_hash_chain_hits(head):
    """A pool that holds every request's tokens: nothing is evicted, so the designs differ only in
    what they could match, which at page size = block size 512 is the same."""
    pool = int(request_lengths(head).sum()) + 512
    runs = {p: traffic.replay(head, pool, policy=p) for p in ("nano-vllm", "sglang")}
    assert np.array_equal(runs["nano-vllm"].cached_tokens, runs["sglang"].cached_tokens)
    assert runs["sglang"].hit_rate > 0


def sequential_hits(policy: str, num_blocks: int, requests: list) -> int:
    sim = Simulator(num_blocks=num_blocks, block_size=1, policy=policy, record=False, rule="count")
    cached: list[int] = []
    AdmissionWatch(sim.scheduler, lambda seq, n: cached.append(n))
    for prompt, max_tokens in requests:
        sim.add(prompt, max_tokens=max_tokens, ignore_eos=True)
        sim.run()
    return sum(cached)


def test_why_the_tree_has_no_one_pass_curve():
    """A bigger pool can hit fewer under SGLang's tree, so no one pass of stack distances gives its
    hit rate at every size (bench/radix_traffic.py --inclusion found this sequence). At 11 pages
    the first request's leaf lives longer; the third request's match splits it and refreshes it,
    so when the next page is short the oldest leaf is the second request's [3, 2, 2, 3], evicted
    whole for one page; at 10 pages it stays, and the fourth request hits its [3, 2]."""
    requests = [([1, 3, 3, 2, 3], 2), ([3, 2, 2, 3], 3), ([1, 1, 2], 3), ([3, 2, 1, 3], 1), ([2, 2, 3, 1, 2, 3], 2)]
    assert sequential_hits("sglang", 10, requests) == 2 > sequential_hits("sglang", 11, requests) == 1
    nano = [sequential_hits("nano-vllm", n, requests) for n in range(10, 20)]
    assert nano == sorted(nano)   # the hash chain's LRU: never fewer with more blocks
