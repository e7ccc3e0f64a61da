"""Questions asked of a recorded timeline (a Simulator, LLM, Session or Timeline), shared by the
views, the exercises and the lessons: find a step, a request by its label, the block table a
request used in a step, the rows a step computed."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

from blockviz.model_inputs import prepare_inputs
from blockviz.recording.events import BlockReleased, Event
from blockviz.recording.snapshot import SeqView, Snapshot


def steps(timeline) -> range:
    """The steps still kept (a live session with a bounded history keeps only the latest)."""
    return range(timeline.first_step, timeline.last_step + 1)


def find_step(timeline, predicate: Callable[[Any], bool]) -> int:
    """The first kept step whose frame satisfies predicate(frame)."""
    for step in steps(timeline):
        if predicate(timeline.frame(step)):
            return step
    raise LookupError("no step matches")


def events_of(timeline, kind: type, step: int | None = None) -> list:
    """The events of one kind, in one step or in every kept step."""
    chosen = steps(timeline) if step is None else (step,)
    return [e for s in chosen for e in timeline.events(s) if isinstance(e, kind)]


def seq_by_label(snapshot: Snapshot, label: str) -> SeqView:
    for seq in snapshot.seqs.values():
        if seq.label == label:
            return seq
    raise KeyError(f"no request labelled {label!r} at step {snapshot.step}")


def labels_of(timeline) -> dict[int, str]:
    """Request labels of the whole timeline (a request added mid-run is in later snapshots only)."""
    labels = getattr(timeline, "labels", None)
    if labels is None:
        labels = {seq_id: seq.label for seq_id, seq in timeline.snapshot(timeline.last_step).seqs.items()}
    return labels


def seq_id_of(timeline, label: str) -> int:
    for seq_id, known in labels_of(timeline).items():
        if known == label:
            return seq_id
    raise KeyError(f"no request labelled {label!r} in this timeline")


def step_block_table(snapshot: Snapshot, events: Iterable[Event], seq_id: int) -> tuple[tuple[int, ...], bool]:
    """(block_table used during this step, released at its end?). A request that finished or was
    preempted has an empty table afterwards; deallocate released it in reverse, so reverse back."""
    seq = snapshot.seqs[seq_id]
    if seq.block_table:
        return seq.block_table, False
    released = [e.block_id for e in events if isinstance(e, BlockReleased) and e.seq_id == seq_id]
    return tuple(reversed(released)), bool(released)


@dataclass(frozen=True)
class Row:
    """One computed token of a step: its packed row, RoPE position, logical block, offset, physical block, slot."""
    label: str
    row: int
    position: int
    token_id: int
    logical: int
    offset: int
    physical: int
    slot: int


def step_rows(timeline, step: int) -> list[Row]:
    """One row per token a recorded step computed, as the model runner packed them: the Sequences of
    the step are rebuilt from the snapshot and passed to ModelRunner.prepare_prefill / prepare_decode."""
    from blockviz.engine.sequence import Sequence
    frame = timeline.frame(step)
    snap = frame.snapshot
    B = snap.block_size
    seqs, owners = [], []  # owners: (label, block table) of each packed row
    for seq_id, (start, count) in snap.scheduled.items():
        view = snap.seqs[seq_id]
        end = start + count if snap.is_prefill else start + 1  # a decode step computes position start
        seq = Sequence(list(view.token_ids[:end]), block_size=B)
        seq.block_table = list(step_block_table(snap, frame.events, seq_id)[0])
        seq.num_cached_tokens, seq.num_scheduled_tokens = start, count
        seqs.append(seq)
        owners += [(view.label, seq.block_table)] * count
    if not seqs:
        return []
    inputs = prepare_inputs(seqs, snap.is_prefill, B)
    return [Row(label, row, t, token_id, t // B, t % B, table[t // B], slot)
            for row, ((label, table), t, token_id, slot) in enumerate(zip(owners, inputs["positions"],
                                                                          inputs["input_ids"], inputs["slot_mapping"]))]
