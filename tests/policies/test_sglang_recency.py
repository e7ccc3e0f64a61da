"""What SGLang's tree counts as touched, against vLLM's free queue (bench/radix_traffic.py
--recency): a match that ends inside a node stamps the whole node before splitting it, so the
tail it did not match (never used) counts as touched now. vLLM's hit leaves the blocks after the
hit where they were in its free queue. On the conversation trace this is the rest of sglang's gap
to vLLM at 3M-10M tokens (docs/benchmarks.md)."""
import importlib.util
from array import array
from pathlib import Path

from blockviz.hits import AdmissionWatch
from blockviz.policies.policy import Policy
from blockviz.radix.base_prefix_cache import EvictParams, InsertParams, MatchPrefixParams
from blockviz.radix.radix_cache import RadixCache, RadixKey
from blockviz.sim import Simulator


def key(*tokens: int) -> RadixKey:
    return RadixKey(array("q", tokens))


def test_a_match_inside_a_node_stamps_its_unmatched_tail():
    tree = RadixCache.create_simulated(mock_allocator=None)
    tree.insert(InsertParams(key=key(1, 2, 3, 4), value=array("q", range(4))))
    tree.insert(InsertParams(key=key(5, 6, 7), value=array("q", range(4, 7))))   # newer than [3, 4]
    tail = tree.root_node.children[key(1).child_key(1)]
    before = tail.last_access_time
    tree.match_prefix(MatchPrefixParams(key=key(1, 2, 8)))   # splits [1, 2, 3, 4] after 2
    assert tail.key.token_ids.tolist() == [3, 4] and tail.last_access_time > before
    newer = tree.root_node.children[key(5).child_key(1)]
    assert tail.last_access_time > newer.last_access_time   # the untouched tail now counts as newer


def bench_module():
    """bench/radix_traffic.py, whose variants change one mechanism each."""
    path = Path(__file__).resolve().parents[2] / "bench" / "radix_traffic.py"
    spec = importlib.util.spec_from_file_location("radix_traffic", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def hits(policy, num_blocks: int, requests: list) -> list[int]:
    """Prompt tokens each request found cached, served one at a time (block size 1)."""
    sim = Simulator(num_blocks=num_blocks, block_size=1, policy=policy, record=False, rule="count")
    cached: list[int] = []
    AdmissionWatch(sim.scheduler, lambda seq, n: cached.append(n))
    for prompt in requests:
        sim.add(prompt, max_tokens=1, ignore_eos=True)   # one token out: no generated KV cached
        sim.run()
    return cached


def test_the_refreshed_tail_outlives_a_newer_prefix_that_vllm_keeps():
    """7 pages, full after the first two requests. The third hits [1, 2] of the first and needs one
    page: vLLM evicts the oldest block of its queue, the first request's [4]; SGLang's oldest leaf
    is the second request's [5, 6, 7], because the match stamped [3, 4] when it split it. The fourth
    request then finds [5, 6] under vLLM and nothing under SGLang."""
    requests = [[1, 2, 3, 4], [5, 6, 7], [1, 2, 8], [5, 6, 9]]
    assert hits("vllm", 7, requests) == [0, 0, 2, 2]
    assert hits("sglang", 7, requests) == [0, 0, 2, 0]
    assert hits("sglang", 8, requests) == [0, 0, 2, 2]   # with a free page nothing is evicted


def test_the_benchs_variant_without_the_tail_stamp_keeps_what_vllm_keeps():
    bench = bench_module()
    variant = Policy("sglang", bench.SplitKeepsAgeSglang, "bench", records=False)
    requests = [[1, 2, 3, 4], [5, 6, 7], [1, 2, 8], [5, 6, 9]]
    assert hits(variant, 7, requests) == hits("vllm", 7, requests) == [0, 0, 2, 2]
