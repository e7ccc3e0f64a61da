"""Each preset scenario shows what its title claims, checked on the engine's own state."""
import pytest

from blockviz.scenarios import load_scenario, presets
from blockviz.states import BlockState, classify_block
from blockviz.recording import events as ev


def events_of(sim, kind, step=None):
    frames = sim.frames if step is None else [sim.frames[step]]
    return [e for f in frames for e in f.events if e.kind == kind]


def seq_id(sim, label):
    return next(seq_id for seq_id, name in sim.labels.items() if name == label)


def slot(block_table, t, block_size):
    return block_table[t // block_size] * block_size + t % block_size


def test_every_preset_runs_to_completion():
    for name in presets():
        sim = load_scenario(name).run()
        assert sim.is_finished(), name


def test_seed004_slots_and_shared_prefix():
    sim = load_scenario("seed004").run()
    a, b = seq_id(sim, "A"), seq_id(sim, "B")
    after_a = sim.snapshot(1)
    table = after_a.seqs[a].block_table
    assert table == (5, 2, 7)
    assert slot(table, 6, 4) == 10
    assert [slot(table, t, 4) for t in range(3, 7)] == [23, 8, 9, 10]
    before, after = sim.snapshot(1), sim.snapshot(2)
    shared = [e for e in events_of(sim, "share", 2) if e.seq_id == b]
    assert [e.block_id for e in shared] == [5, 2]
    for block_id in (5, 2):
        assert before.blocks[block_id].ref_count == 1
        assert after.blocks[block_id].ref_count == 2
        assert classify_block(after, block_id) == BlockState.SHARED
    assert after.seqs[b].block_table[:2] == (5, 2)
    assert after.seqs[b].num_cached_tokens == 10  # 8 from the hit, 2 computed this step


def test_seed000_q2_stale_entry_left_alone():
    sim = load_scenario("seed000_q2_stale").run()
    a, b, c, d = (seq_id(sim, x) for x in "ABCD")
    registered = events_of(sim, "hash", 1)
    first_hash = next(e.hash for e in registered if e.seq_id == a and e.index == 0)
    a_block = next(e.block_id for e in registered if e.seq_id == a and e.index == 0)
    b_block = next(e for e in registered if e.seq_id == b and e.index == 0)
    assert b_block.replaced_block_id == a_block  # the later registration took the entry
    assert classify_block(sim.snapshot(1), a_block) == BlockState.STALE_FREE
    reuse = [e for e in events_of(sim, "allocate", 2) if e.block_id == a_block]
    assert reuse and reuse[0].seq_id == c
    assert reuse[0].dropped_hash == first_hash and reuse[0].evicted_hash == -1
    assert sim.snapshot(2).hash_to_block_id[first_hash] == b_block.block_id
    probes = [e for e in events_of(sim, "probe", 3) if e.seq_id == d]
    assert probes[0].outcome == "hit_free" and probes[0].block_id == b_block.block_id


def test_nano144_aligned_prompt_recomputes_last_block():
    sim = load_scenario("nano144_aligned_prompt").run()
    b = seq_id(sim, "B")
    probes = [e for e in events_of(sim, "probe", 2) if e.seq_id == b]
    assert [p.outcome for p in probes] == ["hit_free", "not_probed"]
    assert sim.snapshot(2).scheduled[b] == (4, 4)  # cached 4, computes the last 4 again
    hashed = [e for e in events_of(sim, "hash", 2) if e.seq_id == b]
    assert len(hashed) == 1 and hashed[0].replaced_block_id != -1
    assert classify_block(sim.snapshot(2), hashed[0].replaced_block_id) == BlockState.STALE_FREE


def test_nano163_reused_block_no_longer_hits():
    sim = load_scenario("nano163_reused_block").run()
    a, c, d = (seq_id(sim, x) for x in "ACD")
    a_hashes = {e.hash: e.block_id for e in events_of(sim, "hash", 1) if e.seq_id == a}
    evicted = {e.evicted_hash for e in events_of(sim, "allocate", 2) if e.seq_id == c}
    assert set(a_hashes) <= evicted
    probes = [e for e in events_of(sim, "probe", 3) if e.seq_id == d]
    assert probes[0].outcome == "miss" and probes[0].hash in a_hashes


def test_nano219_duplicate_blocks_in_one_step():
    sim = load_scenario("nano219_duplicate_blocks").run()
    a, b = seq_id(sim, "A"), seq_id(sim, "B")
    snap = sim.snapshot(1)
    table_a, table_b = snap.seqs[a].block_table, snap.seqs[b].block_table
    assert not set(table_a) & set(table_b)  # same content, different blocks
    for i in range(2):
        assert snap.blocks[table_a[i]].hash == snap.blocks[table_b[i]].hash
        assert snap.hash_to_block_id[snap.blocks[table_a[i]].hash] == table_b[i]  # later wins
    hashed_b = [e for e in events_of(sim, "hash", 1) if e.seq_id == b]
    assert [e.replaced_block_id for e in hashed_b] == list(table_a[:2])


def test_preempted_request_rehits_its_own_blocks():
    sim = load_scenario("preempt_rehit").run()
    b = seq_id(sim, "B")
    preempt_step = next(f.step for f in sim.frames if any(e.kind == "preempt" and e.seq_id == b for e in f.events))
    own = {e.block_id for e in events_of(sim, "hash") if e.seq_id == b and e.index < 2}
    revived = [(f.step, e) for f in sim.frames[preempt_step + 1:] for e in f.events
               if e.kind == "revive" and e.seq_id == b]
    assert revived and {e.block_id for _, e in revived} == own
    assert all(step > preempt_step for step, _ in revived)


def test_scenario_errors_are_clear(tmp_path):
    with pytest.raises(ValueError, match="no scenario file"):
        load_scenario("no-such-scenario")
    bad = tmp_path / "bad.toml"
    bad.write_text("block_size = [", encoding="utf-8")
    with pytest.raises(ValueError, match="not valid TOML"):
        load_scenario(bad)
    missing = tmp_path / "missing.toml"
    missing.write_text('title = "x"\nblock_size = 4\n', encoding="utf-8")
    with pytest.raises(ValueError, match="not a scenario"):
        load_scenario(missing)
