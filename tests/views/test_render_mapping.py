from blockviz.views.render_mapping import packed_offset, render_mapping, step_block_table

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
