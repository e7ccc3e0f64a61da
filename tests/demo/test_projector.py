"""The class page's pictures: the pool legible from the back of a room (text >= 18 px, the full
label on hover), the same states as the engine's classifier, patches as the views make them; the
panels beside it escape what they show."""
from hypothesis import given, settings as hsettings, strategies as st

from blockviz import Simulator
from blockviz.demo.hits import HitLedger
from blockviz.demo.projector import (FONT, MAX_BLOCKS, POOL_AREA, chain_html, columns_for, events_html, mapping_html,
                                     projector_pool)
from blockviz.states import classify
from blockviz.views.pool_patch import pool_patch

from tests.views.svgtools import parse, with_attr


def busy_sim(num_blocks=24) -> Simulator:
    sim = Simulator(num_blocks=num_blocks, block_size=4)
    for k in range(4):
        sim.add(f"a shared prefix then request {k}", max_tokens=6)
    sim.run(max_steps=5)
    return sim


def test_every_text_in_a_cell_is_at_least_18px_and_the_label_is_on_hover():
    sim = busy_sim()
    picture = projector_pool(sim.snapshot(), sim.events(sim.cursor), decode=sim.decode)
    root = parse(picture.svg())
    cells = with_attr(root, "data-block-id")
    assert len(cells) == sim.snapshot().num_blocks
    for cell in cells:
        sizes = [float(t.get("font-size")) for t in cell.iter() if t.tag.endswith("text")]
        assert sizes and min(sizes) >= FONT
        title = next(t for t in cell.iter() if t.tag.endswith("title"))
        assert title.text == cell.get("aria-label") and f"block {cell.get('data-block-id')}:" in title.text
    legend = [float(t.get("font-size")) for t in root.iter() if t.tag.endswith("text")]
    assert min(legend) >= FONT


def test_states_are_the_engines_classifier_at_every_step():
    sim = busy_sim()
    sim.run()
    for step in range(sim.first_step if hasattr(sim, "first_step") else 0, sim.last_step + 1):
        picture = projector_pool(sim.snapshot(step), sim.events(step))
        shown = [c.get("data-state") for c in with_attr(parse(picture.svg()), "data-block-id")]
        assert shown == [s.value for s in classify(sim.snapshot(step))]
        assert parse(picture.svg()).get("data-step") == str(step)


def test_patches_between_steps_touch_only_changed_cells():
    sim = busy_sim()
    before = projector_pool(sim.snapshot(), sim.events(sim.cursor))
    sim.step()
    after = projector_pool(sim.snapshot(), sim.events(sim.cursor))
    patch = pool_patch(before, after)
    changed = {key for key, _, _ in patch["cells"]}
    assert changed and len(changed) < sim.snapshot().num_blocks
    assert "insert" not in patch and "remove" not in patch


@hsettings(max_examples=60, deadline=None)
@given(st.integers(1, MAX_BLOCKS))
def test_the_pool_fits_the_screen_area_as_large_as_it_can(num_blocks):
    ncols = columns_for(num_blocks)
    assert 1 <= ncols <= min(num_blocks, 16)


def test_forty_blocks_fill_the_pool_area_at_full_size():
    sim = busy_sim(40)
    root = parse(projector_pool(sim.snapshot()).svg())
    width, height = int(root.get("width")), int(root.get("height"))
    scale = min(POOL_AREA[0] / width, POOL_AREA[1] / height)
    assert scale >= 0.95  # drawn about 1:1 on a 1920×1080 screen: 18 px stays 18 px


def test_a_pool_too_large_for_legible_cells_is_the_views_picture():
    sim = Simulator(num_blocks=MAX_BLOCKS + 1, block_size=4)
    sim.add("hello", max_tokens=2)
    sim.run()
    picture = projector_pool(sim.snapshot())
    assert len(picture.cells) == MAX_BLOCKS + 1 and parse(picture.svg()).get("data-view") == "pool"


def test_panels_escape_and_show_the_admission():
    sim = Simulator(num_blocks=32, block_size=4)
    sim.add("<b>x</b> shared prefix!", max_tokens=3)
    sim.step()
    b = sim.add("<b>x</b> shared prefix?", max_tokens=3)
    sim.step()
    ledger = HitLedger(4)
    ledger.update(sim)
    hit = ledger.by_seq[b.seq_id]
    chain = chain_html("B", hit, "en")
    assert chain.count('data-outcome="hit_used"') == hit.hit_used > 0
    mapping = mapping_html(sim.snapshot(), b.seq_id, "en", sim.decode)
    assert "<b>x" not in mapping and "&lt;b&gt;x" in mapping
    assert mapping.count("<tr data-block-id") == len(sim.snapshot().seqs[b.seq_id].block_table)
    events = events_html(sim.events(sim.cursor), sim.labels, "en", sim.decode)
    assert "<li>" in events and "<b>" not in events
