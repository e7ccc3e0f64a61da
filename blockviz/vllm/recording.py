"""A watch saved to disk and replayed offline: versioned JSON lines, validated at load, never pickle.

Line 1 is the header. Then, when the watch kept a bounded window, one `block` line per block that
was cached just before the window's first step (so the first kept picture is whole). Then one
`message` line per step: the batch's payload exactly as received (base64), its source, sequence
number, arrival time and how many batches were lost before it. Loading feeds the messages back
through the same decoding and index as a live watch.
"""
from pathlib import Path
from typing import Any

import msgspec

from blockviz.vllm.index import BlockRecord, PrefixIndex, StepInfo
from blockviz.vllm.wire import Hash

FORMAT, VERSION = "blockviz-vllm-events", 1


class Header(msgspec.Struct, tag_field="kind", tag="header", forbid_unknown_fields=True):
    format: str
    version: int
    first_step: int
    history: int | None = None


class BlockLine(msgspec.Struct, tag_field="kind", tag="block", forbid_unknown_fields=True):
    source: str
    hash: Hash
    parent: Hash | None
    token_ids: list[int]
    block_size: int
    medium: str | None
    lora_name: str | None
    extra_keys: Any
    group_idx: int | None
    stored_at: int
    copies: int


class MessageLine(msgspec.Struct, tag_field="kind", tag="message", forbid_unknown_fields=True):
    step: int
    source: str
    seq: int
    ts: float
    received_at: float
    via: str
    lost_before: int
    payload: bytes


Line = Header | BlockLine | MessageLine
_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(Line)


def recording_lines(index: PrefixIndex) -> list[bytes]:
    """The kept steps of `index` as lines of a recording: from the first whose payload is still kept
    (index.MAX_PAYLOAD_BYTES), the blocks cached before it written as blocks."""
    first = index.first_with_payload
    lines = [_encoder.encode(Header(FORMAT, VERSION, first, index.history))]
    if first > 0:
        for r in _before(index, first):
            lines.append(_encoder.encode(BlockLine(r.source, r.hash, r.parent, list(r.token_ids), r.block_size,
                                                   r.medium, r.lora_name, r.extra_keys, r.group_idx, r.stored_at,
                                                   max(r.copies, 1))))   # a block that ended since had >= 1 then
    for info in index.steps:
        if info.step >= first:
            lines.append(message_line(info))
    return lines


def _before(index: PrefixIndex, step: int) -> list[BlockRecord]:
    """Blocks cached just before `step` (the window's first step, whose picture is not itself kept)."""
    out = [r for r in index.live.values() if r.stored_at < step]
    out += [r for r in index.ended if r.stored_at < step <= r.removed_at]
    return sorted(out, key=lambda r: r.stored_at)


def message_line(info: StepInfo) -> bytes:
    return _encoder.encode(MessageLine(info.step, info.source, info.seq, info.ts, info.received_at, info.via,
                                       info.lost_before, info.payload))


def save(index: PrefixIndex, path: str | Path):
    Path(path).write_bytes(b"\n".join(recording_lines(index)) + b"\n")


def read(path: str | Path) -> tuple[Header, list[BlockLine], list[MessageLine]]:
    """The lines of a recording, checked: a clear ValueError names the line that is wrong."""
    path = Path(path)
    header, blocks, messages = None, [], []
    with path.open("rb") as f:
        for number, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            try:
                line = _decoder.decode(raw)
            except (msgspec.ValidationError, msgspec.DecodeError) as e:
                raise ValueError(f"{path}, line {number}: {e}") from None
            where = f"{path}, line {number}"
            if header is None:
                if not isinstance(line, Header) or line.format != FORMAT:
                    raise ValueError(f"{where}: not a blockviz vLLM recording (no {FORMAT!r} header)")
                if line.version != VERSION:
                    raise ValueError(f"{where}: recording version {line.version}; this blockviz reads {VERSION}")
                if line.first_step < 0 or (line.history is not None and line.history < 1):
                    raise ValueError(f"{where}: first_step {line.first_step} / history {line.history} out of range")
                header = line
            elif isinstance(line, Header):
                raise ValueError(f"{where}: a second header")
            elif isinstance(line, BlockLine):
                if messages:
                    raise ValueError(f"{where}: a block line after the messages")
                if line.block_size < 1 or not 0 < len(line.token_ids) <= line.block_size or line.copies < 1 \
                        or not 0 <= line.stored_at < header.first_step:
                    raise ValueError(f"{where}: block size, tokens, copies or stored_at out of range")
                blocks.append(line)
            else:
                expected = header.first_step + len(messages)
                if line.step != expected:
                    raise ValueError(f"{where}: step {line.step}, expected {expected} (steps are consecutive)")
                if line.via not in ("live", "replay") or line.lost_before < 0:
                    raise ValueError(f"{where}: via {line.via!r} / lost_before {line.lost_before} not valid")
                messages.append(line)
    if header is None:
        raise ValueError(f"{path} is empty: not a blockviz vLLM recording")
    if blocks and header.first_step == 0:
        raise ValueError(f"{path}: block lines in a recording that starts at step 0")
    return header, blocks, messages
