"""A patch turns the pool picture a page shows into exactly the next one, whichever way the cursor
moved: applied by the page's own code (js/pool_patch.js, in node: see jspage.py)."""
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from blockviz import Simulator
from blockviz.states import classify, count_states
from blockviz.views import render_pool as render_pool_module
from blockviz.views.pool_patch import body_edits, pool_patch
from blockviz.views.render_pool import pool_picture, render_pool

requests = st.lists(st.tuples(st.text("abc", min_size=1, max_size=14), st.integers(1, 6)), min_size=1, max_size=6)


def run(num_blocks: int, block_size: int, reqs: list[tuple[str, int]], policy: str = "nano-vllm") -> Simulator:
    """A finished run; requests the pool can never hold are left out, half arrive after the first step."""
    sim = Simulator(num_blocks=num_blocks, block_size=block_size, max_num_batched_tokens=16, policy=policy)
    for k, (prompt, max_tokens) in enumerate(reqs):
        if k == len(reqs) // 2 and k:
            sim.run(1)
        try:
            sim.add(prompt, max_tokens=max_tokens)
        except ValueError:
            pass
    sim.run()
    return sim


def check_patches(pages, sim: Simulator, moves: list[tuple[int, int | None]], compact: bool | None = None):
    """Each move (step, selected block) draws a picture; the patch from the one before turns the page
    showing it into exactly that picture, the whole render of that step."""
    pictures = [pool_picture(sim.snapshot(step), sim.events(step), decode=sim.decode, selected=selected,
                             compact=compact) for step, selected in moves]
    patches = [{"base": k, "version": k + 1, **pool_patch(shown, new)}
               for k, (shown, new) in enumerate(zip(pictures, pictures[1:]), start=1)]
    renders = [render_pool(sim.snapshot(step), sim.events(step), decode=sim.decode, selected=selected, compact=compact)
               for step, selected in moves[1:]]
    assert [picture.svg() for picture in pictures[1:]] == renders
    done = pages.patches({"version": 1, "svg": pictures[0].svg()}, patches, renders)
    assert done["results"] == ["applied"] * len(patches)
    assert done["pages"] == done["expected"]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(num_blocks=st.integers(4, 24), block_size=st.integers(1, 4), reqs=requests, compact=st.booleans(),
       fold_min=st.none() | st.integers(2, 4), data=st.data())
def test_patch_applied_to_the_shown_picture_is_the_next_full_render(pages, num_blocks, block_size, reqs, compact,
                                                                   fold_min, data):
    sim = run(num_blocks, block_size, reqs)
    moves = data.draw(st.lists(st.tuples(st.integers(0, sim.last_step), st.none() | st.integers(0, num_blocks - 1)),
                               min_size=2, max_size=8))  # (step, selected block): forward, back, jumps, clicks
    with pytest.MonkeyPatch.context() as mp:
        if fold_min is not None:  # folded like a large pool: runs fold, split and merge as the cursor moves
            mp.setattr(render_pool_module, "FOLD_ABOVE", 0)
            mp.setattr(render_pool_module, "FOLD_MIN", fold_min)
        check_patches(pages, sim, moves, compact)


def test_patches_follow_a_gpu_sized_pool(pages):
    sim = Simulator(num_blocks=65536, block_size=4, max_num_batched_tokens=64)
    for i in range(10):
        sim.add(f"request {i} shares nothing with the others", max_tokens=6)
    sim.run()
    steps = list(range(sim.last_step + 1))
    check_patches(pages, sim, [(step, None) for step in steps] + [(0, 3), (sim.last_step, 3), (5, 40), (2, None)])


def test_a_patch_holds_only_what_changed(lifecycle):
    pictures = [pool_picture(f.snapshot, f.events, compact=True) for f in lifecycle.frames]
    counts = [count_states(f.snapshot) for f in lifecycle.frames]
    assert pool_patch(pictures[1], pictures[1]) == {"cells": []}
    for k, (shown, new) in enumerate(zip(pictures, pictures[1:])):
        patch = pool_patch(shown, new)
        changed = {i for i, (a, b) in enumerate(zip(shown.cells, new.cells)) if a != b}
        assert [c[0] for c in patch["cells"]] == sorted(changed)
        assert ("legend" in patch) == (counts[k] != counts[k + 1])  # the legend counts blocks per state


def test_a_block_that_only_moved_in_the_free_queue_changes_nothing_in_a_large_pool():
    """Each allocation moves every free block one place up the free queue. A compact (large) pool
    does not show the places (the detail panel does), so the patch holds only the blocks the step
    changed and the one that is now next; a small pool shows them, so there they change."""
    sim = Simulator(num_blocks=16, block_size=4)
    sim.add("abcdefg", max_tokens=1)  # the first step takes blocks 0 and 1
    sim.run(1)
    shown, new = (pool_picture(sim.snapshot(step), sim.events(step), compact=True) for step in (0, 1))
    assert [key for key, _, _ in pool_patch(shown, new)["cells"]] == [0, 1, 2]  # 2 is now next: it gets the notch
    shown, new = (pool_picture(sim.snapshot(step), sim.events(step), compact=False) for step in (0, 1))
    moved = {key: attrs for key, attrs, _ in pool_patch(shown, new)["cells"] if key > 2}
    assert sorted(moved) == list(range(3, 16)) and all(attrs["data-queue"] == str(key - 2) for key, attrs in moved.items())

def test_a_body_whose_elements_stay_is_sent_as_the_values_that_changed():
    old = '<rect x="1" fill="#fff"/><text x="2">a &amp; b</text><title>t</title>'
    new = '<rect x="1" fill="#000"/><text x="2">&lt;c&gt; &quot;d&quot;</text><title>t</title>'
    assert body_edits(old, new) == [[0, "fill", "#000"], [1, "", '<c> "d"']]  # values as a page sets them
    assert body_edits(old, old) == []
    assert body_edits(old, '<rect fill="#000" x="1"/><text x="2">a</text><title>t</title>') is None  # reordered
    assert body_edits(old, '<rect x="1" fill="#fff"/><text x="2">a &amp; b</text>') is None  # an element fewer
    assert body_edits(old, '<rect x="1" fill="#fff"/><text x="2" font-weight="bold">a</text><title>t</title>') is None
    # text beside an element is not the element's whole text: it changes with the markup
    assert body_edits("<text>a<tspan>b</tspan></text>", "<text>c<tspan>b</tspan></text>") is None
    assert body_edits("<text>a<tspan>b</tspan></text>", "<text>a<tspan>c</tspan></text>") == [[1, "", "c"]]


def test_a_block_changing_state_in_a_large_pool_changes_its_colours_and_outline_in_place():
    """Every state's cell has the same elements (glyphs.py): a compact pool's patch sends only the
    values that changed, except where the notch of the next allocation comes or goes."""
    sim = Simulator(num_blocks=300, block_size=4)
    sim.add("the cat sat on the mat " * 8, max_tokens=3)
    sim.add("a dog sat on the log " * 6, max_tokens=3)
    sim.run()
    pictures = [pool_picture(sim.snapshot(step), sim.events(step)) for step in range(sim.last_step + 1)]
    states = [classify(sim.snapshot(step)) for step in range(len(pictures))]  # by block: no folds in 300 blocks
    changed = 0
    for k, (shown, new) in enumerate(zip(pictures, pictures[1:])):
        notched = {sim.snapshot(k).free_block_ids[0], sim.snapshot(k + 1).free_block_ids[0]}
        for key, _, body in pool_patch(shown, new)["cells"]:
            if states[k][key] != states[k + 1][key] and key not in notched:
                assert isinstance(body, list) and {name for _, name, _ in body} <= {"fill", "d"}, (k, key, body)
                changed += 1
    assert changed > 50
