"""Format 1 traces (one JSON document, a full picture per step) read into a History.

Each picture is compared with the one before it and only what differs is recorded, so an old
trace ends up in the same form as a new recording and every view reads it the same way.
"""
from typing import Any

import msgspec

from blockviz.checks import MAX_SIM_BLOCKS, MAX_TOKEN_ID
from blockviz.char_tokenizer import CharTokenizer
from blockviz.recording import events as ev
from blockviz.recording.format import FORMAT, PieceTokenizer, TraceError, payload_from_dict
from blockviz.recording.history import BlockView, History, SeqHistory
from blockviz.recording.rebuild import HistoryFrames
from blockviz.recording.timeline import Timeline

STATUSES = ("waiting", "running", "finished")


class SeqRecord(msgspec.Struct):
    seq_id: int
    label: str
    token_ids: list[int]
    num_prompt_tokens: int
    num_cached_tokens: int
    block_table: list[int]
    status: str
    max_tokens: int


class PictureRecord(msgspec.Struct):
    step: int
    block_size: int
    blocks: list[tuple[int, int, list[int]]]  # ref_count, hash, token ids
    free: list[int]
    used: list[int]
    map: list[tuple[int, int]]
    seqs: list[SeqRecord]
    waiting: list[int]
    running: list[int]
    is_prefill: bool | None
    scheduled: list[tuple[int, int, int]]


class FrameRecord(msgspec.Struct):
    step: int
    events: list[dict[str, Any]]
    snapshot: PictureRecord
    payload: dict[str, Any] | None = None


def fail(source: str, where: str, what: str):
    raise TraceError(f"{source}: {where} is malformed ({what})")


def check_picture(p: PictureRecord, num_blocks: int, block_size: int, source: str, where: str):
    if p.block_size != block_size or not 1 <= block_size <= 4096:
        fail(source, where, f"snapshot.block_size {p.block_size}: must be 1..4096 and the same in every frame")
    if len(p.blocks) != num_blocks:
        fail(source, where, f"snapshot.blocks has {len(p.blocks)} blocks, the first frame {num_blocks}")
    ids = range(num_blocks)
    if sorted(p.free + p.used) != list(ids):
        fail(source, where, "snapshot.free and snapshot.used must together list every block id once")
    for h, block_id in p.map:
        if block_id not in ids:
            fail(source, where, f"snapshot.map points hash {h} at block {block_id}, outside the pool")
    for ref, _, tokens in p.blocks:
        if ref < 0 or not all(0 <= t <= MAX_TOKEN_ID for t in tokens):
            fail(source, where, "snapshot.blocks: a ref_count is negative or a token id out of range")
    for q in p.seqs:
        if q.status not in STATUSES:
            fail(source, where, f"request {q.label!r} has unknown status {q.status!r} (one of {', '.join(STATUSES)})")
        if not all(b in ids for b in q.block_table):
            fail(source, where, f"request {q.label!r}'s block table names a block outside the pool")
        if not all(0 <= t <= MAX_TOKEN_ID for t in q.token_ids) or not 0 < q.num_prompt_tokens <= len(q.token_ids):
            fail(source, where, f"request {q.label!r}: token ids out of range or num_prompt_tokens wrong")


def timeline_from_v1(data, source: str) -> Timeline:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise TraceError(f"{source}: not a blockviz trace (format is {found!r}, expected {FORMAT!r})")
    version = data.get("version")
    if version != 1:
        raise TraceError(f"{source}: trace version {version!r} is not supported (this blockviz reads 1..2)")
    frames = data.get("frames")
    if not isinstance(frames, list) or not frames:
        raise TraceError(f"{source}: the trace has no frames")
    history = None
    for i, raw in enumerate(frames):
        where = f"frame {i}"
        try:
            frame = msgspec.convert(raw, FrameRecord)
            events = [ev.event_from_dict(fill_starts(e, raw)) for e in frame.events]
        except msgspec.ValidationError as e:
            fail(source, where, str(e))
        except ValueError as e:
            fail(source, where, str(e))
        p = frame.snapshot
        if history is None:
            if not 1 <= len(p.blocks) <= MAX_SIM_BLOCKS:
                fail(source, where, f"snapshot.blocks: a pool of 1..{MAX_SIM_BLOCKS} blocks, got {len(p.blocks)}")
            history = History(p.block_size, len(p.blocks), p.free + p.used)
            for block_id in p.used:
                history.leave_free_queue(0, block_id)
            previous = None
        check_picture(p, history.num_blocks, history.block_size, source, where)
        if frame.step != i:
            fail(source, where, f"step {frame.step}, expected {i}")
        record_picture(history, p, previous)
        try:
            payload = payload_from_dict(frame.payload)
        except (KeyError, TypeError, ValueError) as e:
            fail(source, where, f"payload: {e}")
        history.end_step(ev.pack_events(events), payload)
        previous = p
    timeline = Timeline(HistoryFrames(history), data.get("meta") or {})
    if data.get("tokenizer") == "chars":
        timeline.tokenizer = CharTokenizer()
    elif data.get("pieces"):
        timeline.tokenizer = PieceTokenizer({int(t): text for t, text in data["pieces"].items()})
    return timeline


def fill_starts(event: dict, frame: dict) -> dict:
    """Format 1's Scheduled events had no starts; the picture's `scheduled` has them."""
    if not isinstance(event, dict) or event.get("kind") != "schedule" or "starts" in event:
        return event
    starts = {seq_id: start for seq_id, start, _ in frame["snapshot"]["scheduled"]}
    return {**event, "starts": [starts.get(seq_id, 0) for seq_id in event.get("seq_ids", [])]}


def record_picture(history: History, p: PictureRecord, previous: PictureRecord | None):
    """Record what differs between two consecutive pictures."""
    step = history.num_steps
    old_blocks = previous.blocks if previous else [(0, -1, [])] * len(p.blocks)
    for block_id, (new, old) in enumerate(zip(p.blocks, old_blocks)):
        if new != old or previous is None:
            ref, h, tokens = new
            history.set_block(step, BlockView(block_id, ref, h, tuple(tokens)))
    if previous is not None:
        was_free = set(previous.free)
        for block_id in previous.free:
            if block_id not in p.free:
                history.leave_free_queue(step, block_id)
        for block_id in p.free:  # FIFO: blocks that joined the queue are at its tail, in order
            if block_id not in was_free:
                history.join_free_queue(step, block_id)
    new_map, old_map = dict(p.map), dict(previous.map) if previous else {}
    for h in new_map.keys() | old_map.keys():
        history.set_hash(step, h, new_map.get(h, -1))
    for q in p.seqs:
        seq = history.seqs.get(q.seq_id)
        if seq is None:
            seq = SeqHistory(q.seq_id, q.label, list(q.token_ids), q.num_prompt_tokens, q.max_tokens, step)
            history.add_seq(seq)
        elif len(q.token_ids) > len(seq.token_ids):
            seq.token_ids.extend(q.token_ids[len(seq.token_ids):])
        seq.update(step, len(q.token_ids), q.num_cached_tokens, q.block_table, q.status)
    history.set_queues(step, tuple(p.waiting), tuple(p.running))
