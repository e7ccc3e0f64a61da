import msgspec
import pytest

from blockviz.recording import events as ev
from blockviz.views.render_events import narrate, render_events

from svgtools import parse, texts

SAMPLE = {int: 1, bool: True, float: 0.0012, str: "x", tuple[int, ...]: (0, 1)}
STRS = {"outcome": "hit_free", "reason": "eos", "text": ""}
LABELS = {0: "A", 1: "B"}


def sample(cls: type[ev.Event], **overrides) -> ev.Event:
    values = {}
    for f in msgspec.structs.fields(cls):
        values[f.name] = STRS.get(f.name, SAMPLE[f.type]) if f.type is str else SAMPLE[f.type]
    return cls(**{**values, **overrides})


VARIANTS = [sample(cls) for cls in ev.EVENT_TYPES.values()] + [
    sample(ev.CacheProbe, outcome="skipped", block_id=-1), sample(ev.CacheProbe, outcome="not_probed"),
    sample(ev.CacheProbe, outcome="mismatch"), sample(ev.CanAllocate, result=-1),
    sample(ev.BlockAllocated, evicted_hash=-1, dropped_hash=77), sample(ev.BlockAllocated, evicted_hash=-1, dropped_hash=-1),
    sample(ev.HashRegistered, replaced_block_id=-1), sample(ev.BlockReleased, ref_count=0),
    sample(ev.TokenSampled, kept=False), sample(ev.TokenSampled, text="cat"), sample(ev.Finished, reason="length"),
    sample(ev.Scheduled, is_prefill=False),
]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("event", VARIANTS, ids=lambda e: e.kind)
def test_every_event_kind_is_narrated_in_one_line(event, lang):
    line = narrate(event, LABELS, lang, decode=lambda ids: "".join(chr(i + 96) for i in ids))
    assert line.strip() and "\n" not in line
    assert "{" not in line and "}" not in line


def test_narration_says_what_matters():
    assert "#5" in narrate(ev.BlockRevived(0, 5, 123), LABELS) and "A" in narrate(ev.BlockRevived(0, 5, 123), LABELS)
    assert "-1" in narrate(ev.CanAllocate(1, -1, 3, 2), LABELS)
    assert "“c”" in narrate(ev.TokenSampled(0, 99), LABELS, decode=lambda ids: "c")
    assert "复活" in narrate(ev.BlockRevived(0, 5, 123), LABELS, "zh")
    assert "A×22, B×1" in narrate(ev.Scheduled(True, (0, 1), (22, 1), (0, 0)), LABELS)


def test_every_kind_a_real_run_emits_is_narrated(lifecycle):
    for frame in lifecycle.frames:
        for event in frame.events:
            assert narrate(event, lifecycle.labels, "zh", lifecycle.decode)


def test_event_log_svg_has_one_line_per_event_and_a_cap(lifecycle):
    events = lifecycle.events(1)
    root = parse(render_events(events, lifecycle.labels, step=1))
    assert len([g for g in root.iter() if "data-kind" in g.attrib]) == len(events)
    capped = parse(render_events(events, lifecycle.labels, step=1, max_lines=5))
    assert len([g for g in capped.iter() if "data-kind" in g.attrib]) == 5
    assert f"… and {len(events) - 5} more" in texts(capped)
    assert "nothing happened" in texts(parse(render_events((), {})))


def test_an_sglang_run_is_narrated_with_its_tree_and_pages():
    from blockviz.sim import Simulator
    sim = Simulator(num_blocks=8, block_size=2, policy="sglang", rule="count")
    for prompt in ([1, 2, 3, 4, 5], [1, 2, 3, 4, 6], [7, 7, 7, 7, 7, 7], [1, 2, 9, 9, 9]):
        sim.add(prompt, max_tokens=4, ignore_eos=True)
    sim.run()
    lines = {e.kind: narrate(e, sim.labels, "en") for s in range(sim.last_step + 1) for e in sim.events(s)}
    for s in range(sim.last_step + 1):
        for e in sim.events(s):
            assert narrate(e, sim.labels, "zh")
    assert "in the radix tree" in lines["share"] and "hash" not in lines["share"]
    assert "split: node" in lines["node_split"] and "leaves the tree" in lines["leaf_evict"]
    assert "[1 2 3 4]" in narrate(ev.NodeInserted(0, 1, 0, (1, 2, 3, 4), (5, 6), 3, 4, 1), LABELS)
    assert "“ab”" in narrate(ev.NodeInserted(0, 1, 0, (1, 2), (5,), 3, 4, 1), LABELS, decode=lambda ids: "ab")
    assert "stays in the radix tree" in narrate(ev.PageReleased(0, 3, 0, False), LABELS)
    assert "joins the free queue" in narrate(ev.PageReleased(0, 3, 0, True), LABELS)
    assert "unlocks node 4" in narrate(ev.LockChanged(0, 4, -1), LABELS)
