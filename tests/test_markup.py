"""User text never becomes markup: every view, export, exercise widget and result, drawn with
hostile labels, prompts and answers, parses with no element or attribute that came from that text."""
from html.parser import HTMLParser

import pytest

from blockviz import Simulator, exercises
from blockviz.exercises.widget import ExerciseWidget
from blockviz.markup import esc, markdown_html
from blockviz.views.export import export_html, export_svg
from blockviz.views.registry import SVG_VIEWS
from blockviz.views.render_view import render_view

# Each carries a tag or attribute name no renderer uses, so finding one in the output means the
# text became markup; the last two are the review's own examples.
HOSTILE = ['<bvhostile>', '"><bvhostile data-bvhostile="1">', "' onbvhostile='1", "</svg><bvhostile>",
           "<img src=x onerror=alert(1)>", "<svg onload=alert(1)>"]
FORBIDDEN_TAGS = {"bvhostile", "img"}
FORBIDDEN_ATTRS = {"data-bvhostile", "onbvhostile", "onerror", "onload"}


class Elements(HTMLParser):

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[str]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, [name for name, _ in attrs]))

    handle_startendtag = handle_starttag

    def handle_data(self, data):
        self.text.append(data)


def assert_no_markup_from_users(markup: str) -> str:
    """Parse `markup`; fail on any element or attribute the hostile texts would have made. Returns
    the text content, so callers can check the hostile text is still shown (as text)."""
    parser = Elements()
    parser.feed(markup)
    parser.close()
    for tag, attrs in parser.tags:
        assert tag not in FORBIDDEN_TAGS, f"<{tag}> came from user text"
        assert not FORBIDDEN_ATTRS & set(attrs), f"<{tag} {attrs}>: an attribute came from user text"
    return "".join(parser.text)


@pytest.fixture(scope="module")
def hostile_sim() -> Simulator:
    sim = Simulator(num_blocks=24, block_size=4)
    for i, text in enumerate(HOSTILE):
        sim.add(f"{text} shared {i}", max_tokens=3, label=text[:40])
    sim.run(2)
    sim.add(f"{HOSTILE[0]} shared 0 again", max_tokens=2, label=HOSTILE[4])  # a prefix hit: the chain view probes
    sim.run()
    return sim


def test_esc_and_markdown_html_leave_no_markup():
    for text in HOSTILE:
        assert text in assert_no_markup_from_users(f"<p title=\"{esc(text)}\">{esc(text)}</p>")
        shown = assert_no_markup_from_users(markdown_html(f"**{text}** and `{text}`"))
        assert text in shown
    assert "href" not in markdown_html("[x](javascript:alert(1))")  # markdown-it refuses the link


@pytest.mark.parametrize("view", SVG_VIEWS)
def test_every_view_at_every_step_with_every_request(hostile_sim, view):
    shown = ""
    for step in range(hostile_sim.first_step, hostile_sim.last_step + 1):
        for seq_id in hostile_sim.seqs if view in ("mapping", "chain") else [None]:
            shown += assert_no_markup_from_users(render_view(hostile_sim, view, step, seq_id=seq_id))
    if view in ("pool", "mapping", "chain", "events"):  # these draw labels or token text: shown as text
        assert "<" in shown and ">" in shown, f"the {view} view shows none of the user text"


def test_pool_detail_panel_and_patches(hostile_sim):
    from blockviz.views.pool_patch import pool_patch
    from blockviz.views.render_pool import pool_picture, render_block_detail
    shown = ""
    for step in range(hostile_sim.first_step, hostile_sim.last_step + 1):
        snapshot = hostile_sim.snapshot(step)
        for block_id in range(snapshot.num_blocks):  # what a click on a block shows
            shown += assert_no_markup_from_users(render_block_detail(snapshot, block_id, decode=hostile_sim.decode))
        if step > hostile_sim.first_step:  # what the page is sent as the pool moves on
            before = pool_picture(hostile_sim.snapshot(step - 1), decode=hostile_sim.decode)
            after = pool_picture(snapshot, hostile_sim.events(step), decode=hostile_sim.decode)
            patch = pool_patch(before, after)
            assert_no_markup_from_users(" ".join(str(v) for v in patch.values()))
    assert "<bvhostile>" in shown  # the token text is shown, as text


def test_exports(hostile_sim, tmp_path):
    page = export_html(hostile_sim, tmp_path / "player.html", title=HOSTILE[1]).read_text(encoding="utf-8")
    assert HOSTILE[1] in assert_no_markup_from_users(page)
    for view in SVG_VIEWS:
        assert_no_markup_from_users(export_svg(hostile_sim, tmp_path / f"{view}.svg", view).read_text(encoding="utf-8"))


def test_text_view_keeps_the_text(hostile_sim):
    assert HOSTILE[0] in str(hostile_sim)  # plain text: shown as typed, nothing to escape


@pytest.mark.parametrize("kind", exercises.kinds())
def test_every_exercise_kind_widget_and_result(kind):
    exercise = exercises.make(kind, seed=1)
    widget = ExerciseWidget(exercise)
    assert_no_markup_from_users(widget.prompt.value)
    for answer in HOSTILE:  # answers are echoed in feedback ("“<img …>” is not a whole number")
        widget.answer.value = answer
        result = widget.check()
        assert_no_markup_from_users(widget.feedback.value)
        assert_no_markup_from_users(result._repr_html_())
    widget.show(exercise.hint())
    assert_no_markup_from_users(widget.feedback.value)
    assert_no_markup_from_users(exercise._repr_html_())


@pytest.mark.parametrize("exercise_id", [
    'decode_mask:{"block_size":2,"num_blocks":8,"setup":[["add","<svg onload=alert(1)>","ab",2],["step",1]],'
    '"label":"<svg onload=alert(1)>"}',
    'slot_mapping:{"block_size":4,"block_table":[1,2],"num_tokens":5,"positions":[1,2],"x":"<img src=x onerror=alert(1)>"}',
    'hit_pattern:{"block_size":2,"num_blocks":8,"setup":[["add","A","<img src=x onerror=alert(1)>",2]],"new":"ab"}',
])
def test_hostile_exercise_ids_are_refused(exercise_id):
    with pytest.raises(ValueError) as e:
        exercises.from_id(exercise_id)
    assert "label" in str(e.value) or "param" in str(e.value) or "text" in str(e.value)


@pytest.mark.parametrize("view", SVG_VIEWS)
def test_control_characters_in_tokens_show_as_pictures_and_keep_the_svg_well_formed(view):
    """Real BPE tokenizers produce control characters (ESC, NUL, ...): XML forbids them even as
    entities, so each shows as its control picture."""
    import xml.etree.ElementTree as ET
    sim = Simulator(num_blocks=8, block_size=4)
    sim.add("a\x1bb\x00c\x07d\x7fe", max_tokens=2, label="ctl")
    sim.run()
    for step in range(sim.last_step + 1):
        svg = render_view(sim, view, step)
        ET.fromstring(svg)  # raises on a control character
        assert not any(ord(c) < 32 and c not in "\t\n\r" for c in svg)
    assert esc("a\x1bb\x00c\x7f\td") == "a␛b␀c␡\td"  # tab, newline and CR are valid XML and stay
