from blockviz.engine.block_manager import BlockManager
from blockviz.recording.events import CacheProbe
from blockviz.views.render_chain import render_chain
from blockviz.views.recording_index import RecordingIndex, admission_probes, tokens_when_probed

from svgtools import parse, with_attr


def test_chain_links_show_the_probe_outcomes_of_the_admission(scenario):
    index = RecordingIndex()
    index.update(scenario.frames)
    for seq_id in scenario.seqs:
        found = index.latest(seq_id, scenario.last_step, admitted_only=True)
        probes = admission_probes(scenario, seq_id, scenario.last_step)
        assert found.probes == probes
        frame = scenario.frames[found.step]
        assert probes == tuple(e for e in frame.events if isinstance(e, CacheProbe) and e.seq_id == seq_id)
        tokens = tokens_when_probed(scenario.frames, seq_id, found.step)
        root = parse(render_chain(frame.snapshot, seq_id, probes, decode=scenario.decode, token_ids=tokens,
                                  probe_step=found.step))
        links = with_attr(root, "data-outcome")
        assert [(int(l.get("data-index")), l.get("data-outcome"), int(l.get("data-hash"))) for l in links] == \
               [(p.index, p.outcome, p.hash) for p in probes]
        assert links[-1].get("data-outcome") == "not_probed"  # the last block is never probed


def test_each_hash_chains_its_parent_and_the_tokens_it_was_probed_with(scenario):
    index = RecordingIndex()
    index.update(scenario.frames)
    B = scenario.snapshot().block_size
    for seq_id in scenario.seqs:
        found = index.latest(seq_id, scenario.last_step)
        tokens = tokens_when_probed(scenario.frames, seq_id, found.step)
        parent = -1
        for probe in found.probes:
            assert probe.hash == BlockManager.compute_hash(list(tokens[probe.index * B:(probe.index + 1) * B]), parent)
            parent = probe.hash


def test_scenario_shows_hits_on_used_and_on_free_blocks(lifecycle):
    outcomes = {e.outcome for f in lifecycle.frames for e in f.events if isinstance(e, CacheProbe)}
    assert {"hit_used", "hit_free", "miss", "skipped", "not_probed"} <= outcomes


def test_a_request_not_probed_yet_gets_a_message():
    from blockviz import Simulator
    sim = Simulator(num_blocks=4, block_size=4)
    seq = sim.add("abc", max_tokens=1)
    svg = render_chain(sim.snapshot(), seq.seq_id, (), lang="zh")
    assert "尚未探测" in svg
