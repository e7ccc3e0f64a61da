"""The class page's pictures: the views' own at the projector's layout. The pool legible from the
back of a room (text >= 18 px, the full label on hover), the same states as the engine's
classifier, the same cells as the notebook's picture but larger, patches as the views make them;
the chain, mapping and events panels no wider than their place on the screen, every text >= 18 px,
escaping what they show."""
from hypothesis import given, settings as hsettings, strategies as st

from blockviz import Simulator
from blockviz.demo.hits import HitLedger
from blockviz.demo.projector import (MAX_BLOCKS, POOL_AREA, QUIET, WIDE, chain_svg, columns_for, events_svg,
                                     mapping_svg, pool_size, projector_pool, radix_svg)
from blockviz.states import classify
from blockviz.views.layout import PROJECTOR
from blockviz.views.pool_patch import pool_patch
from blockviz.views.render_radix import preorder, render_radix
from blockviz.views.render_pool import pool_picture

from tests.views.svgtools import parse, with_attr

FONT = 18  # the smallest text on the class page's pictures


def font_sizes(root) -> list[float]:
    return [float(t.get("font-size")) for t in root.iter() if t.tag.endswith("text")]


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
        sizes = font_sizes(cell)
        assert sizes and min(sizes) >= FONT
        title = next(t for t in cell.iter() if t.tag.endswith("title"))
        assert title.text == cell.get("aria-label") and f"block {cell.get('data-block-id')}:" in title.text
    assert min(font_sizes(root)) >= FONT  # the header and the legend too


def test_the_cells_are_the_notebooks_drawn_larger():
    sim = busy_sim()
    snapshot, events = sim.snapshot(), sim.events(sim.cursor)
    big = with_attr(parse(projector_pool(snapshot, events, decode=sim.decode).svg()), "data-block-id")
    small = with_attr(parse(pool_picture(snapshot, events, decode=sim.decode).svg()), "data-block-id")
    assert [c.attrib for c in big] == [c.attrib for c in small]  # data-*, aria-label: one renderer
    assert [[t.text for t in c.iter() if t.tag.endswith("text")] for c in big] == \
           [[t.text for t in c.iter() if t.tag.endswith("text")] for c in small]
    assert float(big[0][0].get("width")) > float(small[0][0].get("width"))


def test_the_legend_gives_each_state_its_glyph_as_text_for_the_phones_strip():
    sim = busy_sim()
    legend = parse(projector_pool(sim.snapshot()).svg()).find(".//*[@data-part='legend']")
    swatches = [el for el in legend if el.get("data-state")]
    counts = {s.value: 0 for s in classify(sim.snapshot())}
    for s in classify(sim.snapshot()):
        counts[s.value] += 1
    assert len(swatches) == 6
    children = list(legend)
    for swatch in swatches:
        glyph, words = children[children.index(swatch) + 1], children[children.index(swatch) + 2]
        assert glyph.text and len(glyph.text) == 1
        assert words.text.endswith(f" {counts.get(swatch.get('data-state'), 0)}")


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

    def scale(n):
        width, height = pool_size(num_blocks, n)
        return min(POOL_AREA[0] / width, POOL_AREA[1] / height)
    assert all(scale(ncols) >= scale(n) for n in range(1, min(num_blocks, 16) + 1))


@hsettings(max_examples=15, deadline=None)
@given(st.integers(1, MAX_BLOCKS))
def test_columns_for_sizes_the_picture_pool_picture_draws(num_blocks):
    sim = Simulator(num_blocks=num_blocks, block_size=4)
    root = parse(projector_pool(sim.snapshot()).svg())
    width, height = pool_size(num_blocks, columns_for(num_blocks))
    assert (int(root.get("width")), int(root.get("height"))) == (round(width), round(height))


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


def test_panels_escape_show_the_admission_and_fit_their_place():
    sim = Simulator(num_blocks=32, block_size=4)
    sim.add("<b>x</b> shared prefix! and a few more words", max_tokens=3)
    sim.step()
    b = sim.add("<b>x</b> shared prefix? and others", max_tokens=3)
    sim.step()
    ledger = HitLedger(4)
    ledger.update(sim)
    hit = ledger.by_seq[b.seq_id]
    snapshot, events = sim.snapshot(), sim.events(sim.cursor)
    chain = chain_svg(snapshot, b.seq_id, hit, "en", sim.decode)
    assert "<b>x" not in chain and "&lt;b&gt;x" in chain
    links = with_attr(parse(chain), "data-outcome")
    assert [(int(link.get("data-index")), link.get("data-outcome"), int(link.get("data-hash"))) for link in links] == \
           [(index, outcome, h) for index, outcome, h, _ in hit.probes]
    assert sum(link.get("data-outcome") == "hit_used" for link in links) == hit.hit_used > 0
    mapping = mapping_svg(snapshot, b.seq_id, events, "en", sim.decode)
    assert "<b>" not in mapping
    shown = {int(el.get("data-block-id")) for el in with_attr(parse(mapping), "data-block-id")}
    assert shown and shown <= set(snapshot.seqs[b.seq_id].block_table)
    log = events_svg(events, sim.labels, sim.cursor, "en", sim.decode)
    assert "<b>" not in log
    kinds = [el.get("data-kind") for el in with_attr(parse(log), "data-kind")]
    assert kinds == [e.kind for e in events if e.kind not in QUIET][:PROJECTOR.max_events]
    for svg, room in ((chain, PROJECTOR.width), (log, PROJECTOR.width), (mapping, WIDE)):
        root = parse(svg)
        assert min(font_sizes(root)) >= FONT and int(root.get("width")) <= room + 0.5


def test_the_feed_sends_a_chain_again_only_for_a_new_admission():
    from blockviz.demo.feed import ClassFeed
    from blockviz.demo.render import Status, Texts
    sim = Simulator(num_blocks=32, block_size=4)
    sim.add("a shared prefix and then one", max_tokens=8)
    feed = ClassFeed(sim, "<h3>h</h3>", (), HitLedger(4), Texts(sim.decode), "en")
    sent = []
    for k in range(6):
        if k == 3:
            sim.add("a shared prefix and then two", max_tokens=4)
        sim.step()
        message = feed.message(Status(sim.cursor, sim.last_step, 0, 0.0, 0, 0, 0, True), full=not sent)
        sent.append("chain" in message["parts"])
        drawn = feed.parts_at(sim.cursor, Status(sim.cursor, sim.last_step, 0, 0.0, 0, 0, 0, True))["chain"]
        assert 'data-view="chain"' in drawn and drawn == feed.parts["chain"]
    assert sent == [True, False, False, True, False, False]  # the first admission, then the second's


def sglang_sim(num_blocks=40) -> Simulator:
    """Requests that part at different depths of a shared prefix, some escaping-worthy text, and
    enough of them on a small pool that leaves are evicted."""
    sim = Simulator(num_blocks=num_blocks, block_size=4, policy="sglang")
    for k in range(8):
        sim.add("<b>x</b> a shared prefix " + "branch " * (k % 3) + f"then request number {k}", max_tokens=6)
    return sim


def test_the_radix_panel_is_the_trees_own_picture_legible_and_as_wide_as_the_screen_at_most():
    sim = sglang_sim(num_blocks=24)
    drawn = 0
    while not sim.is_finished():
        sim.step()
        tree = sim.snapshot().tree
        svg = radix_svg(tree, sim.cursor, "en", sim.decode)
        assert svg == render_radix(tree, lang="en", decode=sim.decode, step=sim.cursor, layout=PROJECTOR)
        assert "<b>" not in svg
        root = parse(svg)
        assert root.get("data-view") == "radix" and int(root.get("data-step")) == sim.cursor
        assert min(font_sizes(root)) >= FONT and int(root.get("width")) <= WIDE + 0.5
        nodes = [int(el.get("data-node")) for el in with_attr(root, "data-node")]
        assert nodes == [node.id for node, _ in preorder(tree)][:PROJECTOR.radix_rows]
        drawn += len(nodes)
    assert drawn and any(e.kind == "leaf_evict" for s in range(sim.last_step + 1) for e in sim.events(s))


def test_the_feed_under_sglang_sends_the_tree_in_place_of_the_chain_and_again_when_it_changes():
    from blockviz.demo.feed import ClassFeed
    from blockviz.demo.render import Status, Texts
    sim = sglang_sim()
    feed = ClassFeed(sim, "<h3>h</h3>", (), HitLedger(4, radix=True), Texts(sim.decode), "en")
    shown = None
    while not sim.is_finished():
        sim.step()
        status = Status(sim.cursor, sim.last_step, 0, 0.0, 0, 0, 0, True)
        message = feed.message(status, full=shown is None)
        radix = radix_svg(sim.snapshot().tree, sim.cursor, "en", sim.decode)
        assert feed.parts["chain"] == "" and feed.parts["radix"] == radix
        assert ("radix" in message["parts"]) == (radix != shown)   # sent when the picture changed
        shown = radix
    # the teacher steps back: the class page shows the tree of that step
    back = Status(2, sim.last_step, 0, 0.0, 0, 0, 0, False)
    assert feed.message(back)["parts"]["radix"] == radix_svg(sim.snapshot(2).tree, 2, "en", sim.decode)
    nano = Simulator(num_blocks=40, block_size=4)
    nano.add("a shared prefix", max_tokens=2)
    nano.step()
    other = ClassFeed(nano, "<h3>h</h3>", (), HitLedger(4), Texts(nano.decode), "en")
    parts = other.message(Status(nano.cursor, nano.last_step, 0, 0.0, 0, 0, 0, True), full=True)["parts"]
    assert parts["radix"] == "" and 'data-view="chain"' in parts["chain"]
