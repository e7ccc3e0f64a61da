"""One renderer, two layouts (blockviz/views/layout.py): at PROJECTOR every text of the events,
chain, mapping and pool pictures is >= 18 px and each picture keeps to the layout's width, showing
the same things (the same data-* of each element) as at NOTEBOOK; NOTEBOOK's lengths are the
renderers' own; a state's glyph scales with its box."""
import re

import pytest

from blockviz.states import BlockState
from blockviz.views.glyphs import BOX, glyph, outline
from blockviz.views.layout import NOTEBOOK, PROJECTOR
from blockviz.views.recording_index import RecordingIndex, tokens_when_probed
from blockviz.views.render_chain import render_chain
from blockviz.views.render_events import render_events
from blockviz.views.render_mapping import render_mapping
from blockviz.views.render_pool import render_pool

from tests.views.svgtools import parse, with_attr


def sizes(svg: str) -> list[float]:
    return [float(el.get("font-size")) for el in parse(svg).iter() if el.tag.endswith("text")]


def data(svg: str) -> list[dict[str, str]]:
    return [{k: v for k, v in el.attrib.items() if k.startswith("data-")}
            for el in parse(svg).iter() if any(k.startswith("data-") for k in el.attrib)]


def pictures(sim, layout) -> dict[str, str]:
    """Each view at the step that admitted the last request, in `layout`."""
    index = RecordingIndex()
    index.update(sim.frames)
    seq_id = max(sim.seqs)
    found = index.latest(seq_id, sim.last_step, admitted_only=True)
    step = found.step
    snapshot, events = sim.snapshot(step), sim.events(step)
    tokens = tokens_when_probed(sim.frames, seq_id, step)
    return {"pool": render_pool(snapshot, events, decode=sim.decode, layout=layout),
            "events": render_events(events, sim.labels, step=step, decode=sim.decode, layout=layout),
            "chain": render_chain(snapshot, seq_id, found.probes, decode=sim.decode, token_ids=tokens,
                                  probe_step=step, layout=layout),
            "mapping": render_mapping(snapshot, seq_id, events, decode=sim.decode, layout=layout)}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_at_the_projectors_layout_every_text_is_18px_and_within_its_width(scenario, lang):
    for view, svg in pictures(scenario, PROJECTOR).items():
        assert min(sizes(svg)) >= 18, view
        if view != "pool":  # the pool's width is its columns' (the class page picks them: demo/projector.py)
            assert int(parse(svg).get("width")) <= PROJECTOR.width, view


def test_both_layouts_show_the_same_elements(scenario):
    small, big = pictures(scenario, NOTEBOOK), pictures(scenario, PROJECTOR)
    cells = [[c.attrib for c in with_attr(parse(svg["pool"]), "data-block-id")] for svg in (small, big)]
    assert cells[0] == cells[1] and cells[0]  # data-*, aria-label: the same cells
    assert data(small["chain"]) == data(big["chain"])
    # the log at most the layout's lines, the mapping the layout's window of tokens
    assert data(big["events"]) == data(small["events"])[:PROJECTOR.max_events + 1]
    assert 0 < len(with_attr(parse(big["mapping"]), "data-t")) <= max(PROJECTOR.window_tokens,
                                                                      scenario.snapshot().block_size)


def test_the_notebooks_lengths_are_the_renderers_own():
    assert NOTEBOOK.px(38) == 38 and NOTEBOOK.px(12.5) == 12.5
    assert PROJECTOR.px(11) == PROJECTOR.text


def test_a_line_wider_than_the_layout_is_cut_and_whole_on_hover(lifecycle):
    step = next(s for s in range(lifecycle.last_step + 1)
                if any(e.kind == "schedule" for e in lifecycle.events(s)))
    events = [e for e in lifecycle.events(step) if e.kind == "schedule"]
    narrow = PROJECTOR.__class__(**{**PROJECTOR.__dict__, "width": 200})
    root = parse(render_events(events, lifecycle.labels, step=step, layout=narrow))
    line = next(g for g in with_attr(root, "data-kind"))
    shown = next(el.text for el in line.iter() if el.tag.endswith("text"))
    whole = next(el.text for el in line.iter() if el.tag.endswith("title"))
    assert shown.endswith("…") and whole.startswith(shown[:-1]) and len(whole) > len(shown)
    assert int(root.get("width")) <= 200


@pytest.mark.parametrize("state", list(BlockState))
def test_a_glyph_scales_with_its_box(state):
    assert glyph(state, 3, 5) == glyph(state, 3, 5, BOX)

    def numbers(d):  # the outline's coordinates and radii (arc flags are single digits 0/1 after a radius)
        return [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", d)]
    small, big = numbers(outline(state, 0, 0)), numbers(outline(state, 0, 0, 20 / BOX))
    flags = {0.0, 1.0}
    for a, b in zip(small, big):
        if not (a in flags and b == a):
            assert b == pytest.approx(a * 20 / BOX, abs=0.02)
