import re

import pytest

from blockviz import Simulator
from blockviz.i18n import t
from blockviz.states import BlockState, classify, count_states
from blockviz.text import full_hash
from blockviz.recording.events import BlockReleased, HashRegistered
from blockviz.views.render_pool import pool_picture, render_block_detail, render_pool, touched_blocks
from blockviz.views.recording_index import RecordingIndex

from svgtools import parse, texts, with_attr


def test_scenario_reaches_all_six_states(lifecycle):
    seen = {state for frame in lifecycle.frames for state in classify(frame.snapshot)}
    assert seen == set(BlockState)


def test_every_block_shows_the_classifier_state_ref_count_and_queue_place(scenario):
    for frame in scenario.frames:
        snap = frame.snapshot
        root = parse(render_pool(snap, frame.events, decode=scenario.decode))
        assert root.get("data-step") == str(frame.step)
        blocks = {int(el.get("data-block-id")): el for el in with_attr(root, "data-block-id")}
        assert sorted(blocks) == list(range(snap.num_blocks))
        queue = {b: i for i, b in enumerate(snap.free_block_ids)}
        for block_id, state in enumerate(classify(snap)):
            el = blocks[block_id]
            assert el.get("data-state") == state.value
            assert el.get("data-ref") == str(snap.blocks[block_id].ref_count)
            assert el.get("data-queue") == str(queue.get(block_id, -1))
            assert state.value in el.get("aria-label")
            assert state.value in texts(el)  # the label is written in the cell, not only coloured


def test_next_allocation_and_touched_blocks_are_marked(lifecycle):
    frame = lifecycle.frames[1]
    root = parse(render_pool(frame.snapshot, frame.events, decode=lifecycle.decode))
    blocks = {int(el.get("data-block-id")): el for el in with_attr(root, "data-block-id")}
    touched = touched_blocks(frame.events)
    assert touched  # the first prefill allocates
    ringed = set()  # the cells whose rect a ring of the one dashed path under the cells surrounds
    (part,) = [g for g in root if g.get("data-part") == "touched"]
    (rings,) = part
    assert rings.get("class") == "bv-touch" and rings.get("stroke-dasharray") and rings.get("pointer-events") == "none"
    corners = [[float(v) for v in re.findall(r"[-\d.]+", ring)] for ring in rings.get("d").split("M")[1:]]
    for block_id, el in blocks.items():
        rect = next(r for r in el if r.tag.endswith("rect"))
        x, y, w, h = (float(rect.get(k)) for k in ("x", "y", "width", "height"))
        if [x - 1.5, y - 1.5, x + w + 1.5, y - 1.5, x + w + 1.5, y + h + 1.5, x - 1.5, y + h + 1.5] in corners:
            ringed.add(block_id)
        assert not any(r.get("class") == "bv-touch" for r in el.iter())  # no ring of its own
        assert (block_id in touched) == ("changed this step" in el.get("aria-label"))
    assert ringed == touched and len(corners) == len(touched)
    assert [g.get("data-part") for g in root if g.get("data-part")].index("touched") < 2  # under the cells
    head = frame.snapshot.free_block_ids[0]
    assert any(s.startswith("q0 ▶ next") for s in texts(blocks[head]))


def test_touched_blocks_include_the_block_a_duplicate_registration_shadowed(lifecycle):
    events = [e for f in lifecycle.frames for e in f.events if isinstance(e, HashRegistered) and e.replaced_block_id >= 0]
    assert events
    assert events[0].replaced_block_id in touched_blocks(events[:1])


def test_tokens_are_shown_as_text_even_while_a_block_fills(lifecycle):
    frame = lifecycle.frames[1]
    root = parse(render_pool(frame.snapshot, frame.events, decode=lifecycle.decode))
    shown = texts(root)
    assert "the␣" in shown and "cat␣" in shown
    filling = [i for i, s in enumerate(classify(frame.snapshot)) if s == BlockState.FILLING]
    assert filling
    cell = next(el for el in with_attr(root, "data-block-id") if int(el.get("data-block-id")) == filling[0])
    assert "“”" not in cell.get("aria-label")  # a filling block's tokens come from its request


def test_tokens_with_markup_characters_are_escaped_once():
    sim = Simulator(num_blocks=4, block_size=4)
    sim.add('a<&"', max_tokens=1)
    sim.run(1)
    cell = with_attr(parse(render_pool(sim.snapshot(), sim.events(), decode=sim.decode)), "data-block-id")[0]
    assert 'a<&"' in texts(cell) and '“a<&"”' in cell.get("aria-label")


def test_compact_pool_keeps_state_data_and_labels():
    sim = Simulator(num_blocks=300, block_size=4)
    sim.add("x" * 40, max_tokens=2)
    sim.run(1)
    root = parse(render_pool(sim.snapshot(), sim.events()))
    blocks = with_attr(root, "data-block-id")
    assert len(blocks) == 300
    assert [b.get("data-state") for b in blocks] == [s.value for s in classify(sim.snapshot())]
    assert all(b.get("aria-label") for b in blocks)


def test_legend_names_every_state_in_both_languages(lifecycle):
    for lang in ("en", "zh"):
        shown = " ".join(texts(parse(render_pool(lifecycle.snapshot(1), lang=lang))))
        for state in BlockState:
            assert t(f"state.{state.value}", lang) in shown


def test_legend_counts_the_blocks_in_each_state(lifecycle, huge):
    """Every step of the lifecycle, and a folded 65 536-block pool (folded blocks count as free)."""
    cases = [(lifecycle.snapshot(k), "en") for k in range(lifecycle.last_step + 1)] + [(huge.snapshot(2), "zh")]
    for snapshot, lang in cases:
        shown = texts(parse(render_pool(snapshot, lang=lang)))
        for state, count in count_states(snapshot).items():
            line = t("legend.state", lang, name=t(f"state.{state.value}", lang), count=count,
                     meaning=t(f"state.{state.value}.meaning", lang))
            assert line in shown, (snapshot.step, line)


def test_block_detail_shows_full_hash_parent_tokens_and_holders(lifecycle):
    index = RecordingIndex()
    index.update(lifecycle.frames)
    frame = lifecycle.frames[1]
    registered = [e for e in frame.events if isinstance(e, HashRegistered) and e.index == 1]
    event = registered[0]
    html = render_block_detail(frame.snapshot, event.block_id, parents=index.parents, decode=lifecycle.decode)
    block = frame.snapshot.blocks[event.block_id]
    assert full_hash(block.hash) in html
    assert full_hash(event.parent_hash) in html
    assert str(list(block.token_ids)) in html
    holder = lifecycle.labels[event.seq_id]
    assert f"<td style=\"font-family:monospace\">{holder}</td>" in html


def test_block_detail_of_a_released_block_has_no_holder(lifecycle):
    frame = next(f for f in lifecycle.frames if any(isinstance(e, BlockReleased) and e.ref_count == 0 for e in f.events))
    released = next(e for e in frame.events if isinstance(e, BlockReleased) and e.ref_count == 0)
    html = render_block_detail(frame.snapshot, released.block_id, lang="zh")
    assert "持有它的请求" in html


@pytest.mark.parametrize("num_blocks", [12, 300, 4096])
def test_cells_kept_from_earlier_pictures_draw_the_same_pool(num_blocks):
    """A widget passes `kept` to reuse the cells of blocks that look the same: in any order of
    steps and selections, and across a fold, the picture is the one drawn from nothing."""
    sim = Simulator(num_blocks=num_blocks, block_size=4)
    for i in range(6):
        sim.add(f"the cat sat on the mat, then request {i} asked", max_tokens=5)
    sim.run()
    kept: dict = {}
    order = [*range(sim.last_step + 1), 3, 0, sim.last_step, 2, 2, 1]
    for k, step in enumerate(order):
        selected = (None, 1, 5)[k % 3]
        args = (sim.snapshot(step), sim.events(step))
        assert pool_picture(*args, selected=selected, kept=kept) == pool_picture(*args, selected=selected)
        assert pool_picture(*args, lang="zh", kept=kept) == pool_picture(*args, lang="zh")
    assert kept


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("columns", [2, 3, 5, 9])
def test_a_pool_given_its_columns_fits_their_width_legend_and_header_included(columns, lang):
    """What a page's pane has room for: the cells in `columns` columns, and every text (the header
    cut, the legend's lines wrapped) inside the picture's width."""
    from blockviz.views.render_pool import FULL_CELL, GAP, PAD
    from blockviz.views.svg import text_width
    sim = Simulator(num_blocks=24, block_size=16)
    sim.add("It is a truth universally acknowledged, that a single man", max_tokens=4)
    sim.run(2)
    picture = pool_picture(sim.snapshot(), sim.events(), lang=lang, columns=columns)
    root = parse(picture.svg())
    width = float(root.get("width"))
    assert width == 2 * PAD + columns * (FULL_CELL[0] + GAP) and root.get("data-columns") == str(columns)
    xs = sorted({float(el.get("x")) for el in with_attr(root, "data-block-id") for el in el.iter() if el.tag.endswith("rect")
                 and el.get("width") == str(FULL_CELL[0])})
    assert len(xs) == columns
    for el in root.iter():
        if el.tag.endswith("text") and el.text and el.get("text-anchor", "start") == "start":
            right = float(el.get("x")) + text_width(el.text, float(el.get("font-size")))
            assert right <= width + 0.5, (el.text, right, width)
    legend = "".join(texts(parse(f"<svg>{picture.legend}</svg>"))).replace(" ", "")
    for state in BlockState:  # every meaning whole: wrapped, not cut
        assert t(f"state.{state.value}.meaning", lang).replace(" ", "") in legend



def test_every_text_of_a_cell_stays_inside_its_cell():
    """A long token text is cut inside its own cell, never drawn over the next one."""
    from blockviz.views.svg import text_width
    sim = Simulator(num_blocks=8, block_size=16)
    sim.add("It is a truth universally acknowledged, that a single man in possession", max_tokens=2)
    sim.run(1)
    for cell in with_attr(parse(pool_picture(sim.snapshot(), sim.events()).svg()), "data-block-id"):
        rect = next(el for el in cell.iter() if el.tag.endswith("rect"))
        right = float(rect.get("x")) + float(rect.get("width"))
        for el in cell.iter():
            if el.tag.endswith("text") and el.text and el.get("text-anchor", "start") == "start":
                assert float(el.get("x")) + text_width(el.text, float(el.get("font-size"))) <= right, el.text
