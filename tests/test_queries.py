import pytest

from blockviz.lessons import capture
from blockviz.model_inputs import model_inputs
from blockviz.queries import events_of, find_step, seq_by_label, seq_id_of, step_block_table, step_rows
from blockviz.scenarios import load_scenario, presets
from blockviz.recording.events import BlockAllocated


def test_seed004_slot():
    sim = load_scenario("seed004").run()
    rows = step_rows(sim, 1)
    assert [r.slot for r in rows if r.label == "A"][6] == 10
    assert rows[6].physical == 2 and rows[6].offset == 2 and rows[6].logical == 1


@pytest.mark.parametrize("name", presets())
def test_step_rows_follow_the_slot_formula(name):
    """step_rows runs the model runner's own prepare_* methods; check them against the formula, step by step
    (prefills with cached prefixes, chunks, decode, requests finishing or preempted in the step)."""
    sim = load_scenario(name).run()
    B = sim.config.kvcache_block_size
    for frame in sim.frames[1:]:
        rows = step_rows(sim, frame.step)
        assert [r.row for r in rows] == list(range(len(rows)))
        expected = []
        for seq_id, (start, count) in frame.snapshot.scheduled.items():
            seq = frame.snapshot.seqs[seq_id]
            positions = range(start, start + count)
            expected += [(seq.label, t, seq.token_ids[t]) for t in positions]
        assert [(r.label, r.position, r.token_id) for r in rows] == expected
        for r in rows:
            assert r.slot == r.physical * B + r.offset and (r.logical, r.offset) == divmod(r.position, B)


def test_step_rows_equal_what_the_live_model_runner_built():
    from blockviz.llm import LLM
    from blockviz.sampling_params import SamplingParams
    llm = LLM(kvcache_block_size=4, num_kvcache_blocks=16, device="cpu")
    params = SamplingParams(temperature=0, max_tokens=5)
    llm.add_request("It is a truth universally acknowledged", params)
    with model_inputs(llm.model_runner) as log, capture(llm.model_runner, "run_model") as logits:
        llm.step()
        llm.add_request("It is a truth universally known", params)
        llm.run()
    assert not {"prepare_prefill", "prepare_decode", "run_model"} & set(vars(llm.model_runner))
    assert len(log) == len(logits) == llm.num_steps
    assert [len(x) for x in logits] == [len(f.snapshot.scheduled) for f in llm.frames[1:]]
    for step, inputs in enumerate(log, start=1):
        rows = step_rows(llm, step)
        assert [r.slot for r in rows] == inputs["slot_mapping"]
        assert [r.position for r in rows] == inputs["positions"]
        assert [r.token_id for r in rows] == inputs["input_ids"]
        assert inputs["is_prefill"] == llm.snapshot(step).is_prefill


def test_find_a_step_a_request_and_its_events():
    sim = load_scenario("seed004").run()
    decode = find_step(sim, lambda f: f.snapshot.is_prefill is False)
    assert not sim.snapshot(decode).is_prefill and all(sim.snapshot(s).is_prefill for s in range(1, decode))
    with pytest.raises(LookupError):
        find_step(sim, lambda f: False)
    a = seq_by_label(sim.snapshot(), "A")
    assert seq_id_of(sim, "A") == a.seq_id and sim.labels[a.seq_id] == "A"
    with pytest.raises(KeyError, match="no request labelled 'Z'"):
        seq_by_label(sim.snapshot(), "Z")
    allocated = events_of(sim, BlockAllocated)
    assert allocated and allocated == [e for s in range(sim.last_step + 1) for e in events_of(sim, BlockAllocated, s)]


def test_a_finished_request_keeps_the_table_it_used_in_its_last_step():
    sim = load_scenario("seed004").run()
    for step in range(1, sim.last_step + 1):
        snap, events = sim.snapshot(step), sim.events(step)
        for seq_id in snap.scheduled:
            table, released = step_block_table(snap, events, seq_id)
            assert table and released == (not snap.seqs[seq_id].block_table)


def test_labels_of_a_timeline_and_the_id_of_a_label():
    from blockviz.queries import labels_of
    sim = load_scenario("seed004").run()
    labels = labels_of(sim)
    assert sorted(labels.values()) == ["A", "B"] and seq_id_of(sim, "B") == next(i for i, l in labels.items() if l == "B")
    with pytest.raises(KeyError, match="no request labelled 'Z'"):
        seq_id_of(sim, "Z")
