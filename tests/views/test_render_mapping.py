import pytest

from blockviz.views.render_mapping import packed_offset, render_mapping, step_block_table
from blockviz.views.svg import text_width

from svgtools import parse, with_attr


def test_every_slot_is_block_table_entry_times_block_size_plus_offset(scenario):
    checked = 0
    for frame in scenario.frames:
        snap = frame.snapshot
        B = snap.block_size
        for seq_id in snap.seqs:
            table, _ = step_block_table(snap, frame.events, seq_id)
            root = parse(render_mapping(snap, seq_id, frame.events, decode=scenario.decode))
            for el in with_attr(root, "data-t"):
                p, slot = int(el.get("data-t")), int(el.get("data-slot"))
                if p // B < len(table):
                    assert slot == table[p // B] * B + p % B
                    assert int(el.get("data-block")) == table[p // B]
                    checked += 1
                else:
                    assert slot == -1  # no block yet for this position
    assert checked > 50


def test_this_steps_positions_and_packed_rows(scenario):
    for frame in scenario.frames[1:]:
        snap = frame.snapshot
        rows = []
        for seq_id, (start, count) in snap.scheduled.items():
            root = parse(render_mapping(snap, seq_id, frame.events))
            now = {int(el.get("data-t")): int(el.get("data-row")) for el in with_attr(root, "data-t")
                   if el.get("data-now") == "1"}
            assert sorted(now) == list(range(start, start + count))
            assert [now[p] for p in sorted(now)] == list(range(packed_offset(snap, seq_id), packed_offset(snap, seq_id) + count))
            rows += [now[p] for p in sorted(now)]
        # the batch is packed: request after request, no gap
        assert rows == list(range(sum(n for _, n in snap.scheduled.values())))


def test_a_request_that_just_finished_shows_the_table_it_used(lifecycle):
    frame = next(f for f in lifecycle.frames if any(e.kind == "finish" for e in f.events))
    seq_id = next(e.seq_id for e in frame.events if e.kind == "finish")
    assert frame.snapshot.seqs[seq_id].block_table == ()
    table, released = step_block_table(frame.snapshot, frame.events, seq_id)
    assert released and table
    svg = render_mapping(frame.snapshot, seq_id, frame.events, lang="zh")
    assert "释放" in svg and str(list(table)) in svg


def test_chunked_prefill_positions_continue_where_the_last_chunk_stopped(chunked):
    starts = [f.snapshot.scheduled[next(iter(f.snapshot.seqs))][0] for f in chunked.frames[1:]
              if next(iter(chunked.seqs)) in f.snapshot.scheduled and f.snapshot.is_prefill]
    assert starts[:2] == [0, 10]


def large_pool_run(block_size: int, prompt_tokens: int):
    """A request at the far end of a pool of 65 536 blocks (seven-digit slots), its tokens ids with no
    text, as a traffic replay's are."""
    from blockviz import Simulator
    from blockviz.char_tokenizer import TokenIds
    num_blocks = 65_536
    sim = Simulator(num_blocks=num_blocks, block_size=block_size, max_num_batched_tokens=4096, max_model_len=8192,
                    free_order=list(range(num_blocks - 1, -1, -1)))
    sim.tokenizer = TokenIds()
    sim.add([1 + (i * 7919) % 151_000 for i in range(prompt_tokens)], max_tokens=2)
    sim.step()
    return sim


@pytest.mark.parametrize("block_size, prompt_tokens", [(16, 40), (32, 70), (512, 600)])
def test_large_pool_slots_and_id_tokens_stay_apart_and_inside_the_view(block_size, prompt_tokens):
    """Six- and seven-digit slots in a 65 536-block pool: no two texts of a line overlap, none runs past
    the view's width, every position of this step's window is drawn, and a token with no text shows
    as <id> with the legend saying what that is."""
    sim = large_pool_run(block_size, prompt_tokens)
    snap = sim.snapshot()
    seq_id = next(iter(snap.seqs))
    svg = render_mapping(snap, seq_id, sim.events(sim.cursor), decode=sim.decode)
    root = parse(svg)
    width = float(root.get("width"))
    assert width <= 800
    lines: dict[float, list[tuple[float, float]]] = {}
    for el in with_attr(root, "data-t"):
        for cell in el.iter():
            if cell.tag.endswith("text") and cell.text:
                x, w = float(cell.get("x")), text_width(cell.text, float(cell.get("font-size")))
                assert x - w / 2 >= 0 and x + w / 2 <= width, (cell.text, x, width)
                lines.setdefault(float(cell.get("y")), []).append((x - w / 2, x + w / 2))
    for spans in lines.values():
        spans.sort()
        assert all(right + 2 <= next_left for (_, right), (next_left, _) in zip(spans, spans[1:])), spans
    drawn = sorted(int(el.get("data-t")) for el in with_attr(root, "data-t"))
    assert drawn == list(range(drawn[0], drawn[0] + len(drawn))) and len(drawn) == min(prompt_tokens, len(drawn))
    assert len(drawn) >= min(prompt_tokens, 32)
    first = next(el for el in with_attr(root, "data-t") if el.get("data-t") == str(drawn[0]))
    token = next(c.text for c in first.iter() if c.tag.endswith("text") and c.text)
    assert token == f"<{snap.seqs[seq_id].token_ids[drawn[0]]}>"
    assert "token id n, which has no text" in svg


def test_a_traffic_replay_shows_its_tokens_as_ids_live_and_from_its_trace_file(tmp_path):
    """A trace's tokens are made up per hash id: the mapping shows <id>, not the character that id
    happens to be, in the live run and in its saved recording."""
    from blockviz import traffic
    from blockviz.recording.io import load_trace
    from blockviz.views.render_view import render_view
    result = traffic.replay(traffic.load("conversation").head(3), 50_000, 32, tokens_per_id=16, record=True)
    engine = result.engine
    engine.save(tmp_path / "replay.jsonl")
    for timeline in (engine, load_trace(tmp_path / "replay.jsonl")):
        svg = render_view(timeline, "mapping", 1)
        tokens = [next(c.text for c in el.iter() if c.tag.endswith("text")) for el in with_attr(parse(svg), "data-t")]
        assert tokens and all(token.startswith("<") and token.endswith(">") for token in tokens), tokens[:5]
        assert "which has no text" in svg
