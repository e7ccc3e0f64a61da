"""The recording under policy "sglang": at every step, the tree rebuilt from the recording's events
is the live engine's tree (shape, edge tokens, pages, lock counts, hit counts, the order of its
access and creation times, the eviction order), and the pool (free queue, page states, ref counts,
block tables) the live BlockManager's; a saved trace loads and replays the same frames; stepping
back and forth gives the same frames."""
from dataclasses import replace

from hypothesis import given, settings, strategies as st

from blockviz.policies import Policy, get

from blockviz.policies.sglang import SglangBlockManager
from blockviz.recording import events as ev
from blockviz.recording.instrumented import RecordingScheduler, recording_class
from blockviz.recording.instrumented_radix import RadixRecording, RecordingRadixCache
from blockviz.recording.io import load_trace
from blockviz.recording.radix_tree import RecordedTree, views_of
from blockviz.sim import Simulator


def pages_of(node, page_size: int) -> tuple[int, ...]:
    pages = getattr(node, "pages", None)   # a RecordedNode's; a TreeNode holds KV slots
    return pages if pages is not None else tuple(v // page_size for v in node.value[::page_size])


def ranked(values: dict) -> list[set]:
    """Keys grouped by equal value, in increasing value order: what comparisons of the values say."""
    groups: dict = {}
    for k, v in values.items():
        groups.setdefault(v, set()).add(k)
    return [groups[v] for v in sorted(groups)]


def canonical(tree) -> dict:
    """A RadixCache or a RecordedTree, with nodes named by their path's tokens (ids differ between
    the live tree and the recording's) and times by their order."""
    ps = tree.page_size
    nodes, accessed, created, path_of = {}, {}, {}, {}
    stack = [(tree.root_node, ())]
    while stack:
        node, above = stack.pop()
        path = above + tuple(node.key.token_ids)
        assert path not in nodes
        path_of[id(node)] = path
        nodes[path] = (pages_of(node, ps) if node is not tree.root_node else (), node.lock_ref, node.hit_count)
        accessed[path], created[path] = node.last_access_time, node.creation_time
        for key, child in node.children.items():
            assert key == child.key.child_key(ps) and child.parent is node
            stack.append((child, path))
    priority = tree.eviction_strategy.get_priority
    leaves = sorted(tree.evictable_leaves, key=lambda n: (priority(n), n))
    return {"nodes": nodes, "accessed": ranked(accessed), "created": ranked(created),
            "evict": [path_of[id(n)] for n in leaves],
            "sizes": (tree.evictable_size(), tree.protected_size())}


def pool_of(pool) -> dict:
    """The pool of a live SglangBlockManager or a recorded step, the same way."""
    used = set(pool.used_block_ids)
    held = {b for b in used if pool.blocks[b].ref_count > 0}
    return {"free": list(pool.free_block_ids), "states": (held, used - held),
            "ref": [b.ref_count for b in pool.blocks]}


def tables_of(seqs) -> dict:
    return {i: (tuple(s.block_table), s.num_cached_tokens) for i, s in seqs.items()}


def shared(prefixes: list[list[int]], requests: list[tuple]) -> list[tuple[int, list[int], int]]:
    """(arrival step, prompt, max_tokens): prompts start with one of a few prefixes, so edges split."""
    return [(at, prefixes[k % len(prefixes)] + suffix, n) for at, k, suffix, n in requests]


workloads = st.builds(shared, st.lists(st.lists(st.integers(0, 2), max_size=8), min_size=1, max_size=3),
                      st.lists(st.tuples(st.integers(0, 4), st.integers(0, 2),
                                         st.lists(st.integers(0, 2), min_size=1, max_size=8), st.integers(1, 5)),
                               min_size=1, max_size=7))


def evicting_by(eviction_policy: str) -> Policy:
    """Policy "sglang" with the tree evicting by another of SGLang's strategies (not registered)."""
    if eviction_policy == "lru":
        return get("sglang")
    cls = type(f"Sglang_{eviction_policy}", (SglangBlockManager,), {"eviction_policy": eviction_policy})
    return replace(get("sglang"), block_manager=cls)


def arrive_and_step(sim: Simulator, arrivals, state) -> list:
    """Each request arrives after its step, or at once when the engine has nothing to do; state()
    at frame 0 (every request added before the first step) and after every step."""
    seen = []
    pending = sorted(arrivals, key=lambda a: a[0])
    while True:
        while pending and (pending[0][0] <= sim.num_steps or sim.scheduler.is_finished()):
            _, prompt, max_tokens = pending.pop(0)
            sim.add(prompt, max_tokens=max_tokens, ignore_eos=True)
        if not seen:
            seen.append(state())
        if sim.scheduler.is_finished():
            return seen
        sim.step()
        seen.append(state())
        assert sim.num_steps < 400


def run_live(arrivals, num_blocks: int, block_size: int, budget: int, eviction: str = "lru",
             **options) -> tuple[Simulator, list[dict]]:
    """Each request arrives at its step; after every step the live engine's tree, pool and tables."""
    longest = max(len(p) + n for _, p, n in arrivals)
    num_blocks = max(num_blocks, -(-longest // block_size))
    sim = Simulator(num_blocks=num_blocks, block_size=block_size, policy=evicting_by(eviction), rule="count",
                    max_num_batched_tokens=budget, **options)
    bm = sim.scheduler.block_manager

    def state() -> dict:
        return {"tree": canonical(bm.tree), "pool": pool_of(bm), "pages": bm.page_states(),
                "tables": tables_of({s.seq_id: s for s in (*sim.scheduler.waiting, *sim.scheduler.running)})}

    return sim, arrive_and_step(sim, arrivals, state)


def recorded(snapshot) -> dict:
    held = {i: q for i, q in snapshot.seqs.items() if q.status in ("waiting", "running")}
    used = set(snapshot.used_block_ids)
    cached = {b for b in used if snapshot.blocks[b].ref_count == 0}
    return {"tree": canonical(snapshot.tree), "pool": pool_of(snapshot),
            "pages": {"free": set(snapshot.free_block_ids), "used": used - cached, "cached": cached},
            "tables": tables_of(held)}


@settings(max_examples=300, deadline=None)
@given(workloads, st.integers(1, 4), st.integers(3, 20), st.integers(1, 30),
       st.sampled_from(["lru", "lru", "lfu", "fifo", "mru", "filo", "priority", "slru"]))
def test_the_tree_and_pool_rebuilt_from_the_recording_are_the_live_ones_at_every_step(
        arrivals, block_size, num_blocks, budget, eviction):
    sim, live = run_live(arrivals, num_blocks, block_size, budget, eviction)
    assert sim.last_step == len(live) - 1
    for step in [*range(sim.last_step, -1, -1), *range(sim.last_step + 1)]:   # back from the end, then forward
        assert recorded(sim.snapshot(step)) == live[step], f"step {step}"


@settings(max_examples=60, deadline=None)
@given(workloads, st.integers(1, 3), st.integers(3, 12))
def test_a_saved_trace_loads_and_replays_the_same_frames(tmp_path_factory, arrivals, block_size, num_blocks):
    sim, _ = run_live(arrivals, num_blocks, block_size, 16)
    path = tmp_path_factory.mktemp("radix") / "run.jsonl"
    sim.save(path)
    loaded = load_trace(path)
    assert loaded.policy.name == "sglang" and loaded.last_step == sim.last_step
    for step in range(sim.last_step + 1):
        assert loaded.events(step) == sim.events(step)
        assert loaded.snapshot(step) == sim.snapshot(step)


def test_a_run_recorded_to_a_file_has_no_keyframes_and_loads(tmp_path):
    path = tmp_path / "run.jsonl"
    sim = Simulator(num_blocks=6, block_size=2, policy="sglang", rule="count", record_to=str(path))
    for prompt in ([1, 2, 3, 4], [1, 2, 3, 5], [1, 2, 9, 9, 9]):
        sim.add(prompt, max_tokens=3, ignore_eos=True)
    sim.trace_writer().keyframe_every = 1   # due after every step: none is written all the same
    sim.run()
    sim.close()
    text = path.read_text()
    assert '"keyframe"' not in text
    loaded = load_trace(path)
    assert [loaded.snapshot(s) for s in range(sim.last_step + 1)] == [sim.snapshot(s) for s in range(sim.last_step + 1)]
    lines = text.splitlines()
    lines.insert(2, '{"keyframe": 1, "free": [], "blocks": [], "hash_map": [], "waiting": [], "running": [], "seqs": []}')
    path.write_text("\n".join(lines) + "\n")
    try:
        load_trace(path)
    except Exception as e:
        assert "has no keyframes" in str(e)
    else:
        raise AssertionError("a keyframe in an sglang trace must be refused")


def test_stepping_back_and_forth_gives_the_same_frames():
    sim = Simulator(num_blocks=8, block_size=2, policy="sglang", rule="count")
    for prompt in ([1, 2, 3, 4, 5], [1, 2, 3, 4, 6], [7, 7, 7, 7, 7, 7], [1, 2, 9, 9, 9]):
        sim.add(prompt, max_tokens=4, ignore_eos=True)
    sim.run()
    forward = [(sim.seek(s).events, sim.snapshot(s).plain()) for s in range(sim.last_step + 1)]
    back = [(sim.seek(s).events, sim.snapshot(s).plain()) for s in range(sim.last_step, -1, -1)][::-1]
    assert forward == back
    sim.frames.reset()   # a new replay from step 0 names nodes and ticks times the same way
    assert [(sim.events(s), sim.snapshot(s).plain()) for s in range(sim.last_step + 1)] == forward
    kinds = {e.kind for s in range(sim.last_step + 1) for e in sim.events(s)}
    assert {"node_insert", "node_split", "lock", "leaf_evict", "page_freed", "page_release"} <= kinds, kinds


def test_the_recording_class_over_sglang_reports_the_tree():
    cls = recording_class(SglangBlockManager)
    assert issubclass(cls, RadixRecording) and cls.policy_class is SglangBlockManager
    events = []
    bm = cls(8, 2, events.append)
    assert isinstance(bm.tree, RecordingRadixCache) and bm.tree.token_to_kv_pool_allocator.manager is bm
    assert [v.node_id for v in views_of(bm.tree)] == [0]


def test_a_tree_applies_a_split_an_insert_a_lock_and_an_eviction():
    tree = RecordedTree(2, "lru")
    tree.apply(ev.NodeInserted(0, 1, 0, (1, 2, 3, 4), (5, 6), 3, 4, 1))
    tree.apply(ev.NodeSplit(0, 1, 2, 2, 6, 7))
    tree.apply(ev.NodeInserted(0, 3, 2, (9, 9), (1,), 8, 9, 1))
    tree.apply(ev.LockChanged(1, 3, 1))
    assert [(v.node_id, v.parent, v.token_ids, v.pages, v.lock_ref) for v in tree.plain()] == [
        (0, -1, (), (), 1), (1, 2, (3, 4), (6,), 0), (2, 0, (1, 2), (5,), 1), (3, 2, (9, 9), (1,), 1)]
    assert {n.id for n in tree.evictable_leaves} == {1}
    assert tree.evictable_size() == 2 and tree.protected_size() == 4
    tree.apply(ev.LeafEvicted(0, 1))
    assert sorted(tree.nodes) == [0, 2, 3]
    again = RecordedTree.from_views(tree.views(), 2, "lru")
    assert again.plain() == tree.plain() and again.root_node.children[(1, 2)].children[(9, 9)].id == 3


def test_the_recording_engine_decides_as_the_plain_one():
    """The instrumented scheduler over sglang makes the live engine's decisions (its tables and pool)."""
    from blockviz.config import Config
    from blockviz.engine.sequence import Sequence
    from blockviz.sampling_params import SamplingParams
    config = Config(num_kvcache_blocks=5, kvcache_block_size=2, max_num_seqs=4, max_num_batched_tokens=8)
    events = []
    scheduler = RecordingScheduler(config, events.append, "sglang")
    for prompt in ([1, 2, 3], [1, 2, 4]):
        scheduler.add(Sequence(prompt, SamplingParams(max_tokens=2, ignore_eos=True), block_size=2))
    seqs, _ = scheduler.schedule()
    assert [type(e) for e in events].count(ev.CanAllocate) == 2
    assert [s.block_table for s in seqs] == [[0, 1], [2, 3]]



@settings(max_examples=60, deadline=None)
@given(workloads, st.integers(1, 3), st.integers(3, 12), st.integers(1, 6))
def test_a_bounded_history_keeps_the_trees_and_pools_of_its_window(arrivals, block_size, num_blocks, history):
    sim, live = run_live(arrivals, num_blocks, block_size, 16, history=history)
    assert sim.last_step - sim.first_step <= history + max(1, history // 4)
    for step in range(sim.first_step, sim.last_step + 1):
        assert recorded(sim.snapshot(step)) == live[step], f"step {step}"


def test_a_session_that_does_not_record_pictures_its_tree_now():
    sim = Simulator(num_blocks=8, block_size=2, policy="sglang", rule="count", record=False)
    for prompt in ([1, 2, 3, 4, 5], [1, 2, 3, 4, 6], [1, 2, 9, 9, 9]):
        sim.add(prompt, max_tokens=3, ignore_eos=True)
    for _ in range(4):
        sim.step()
        assert canonical(sim.snapshot().tree) == canonical(sim.scheduler.block_manager.tree)
