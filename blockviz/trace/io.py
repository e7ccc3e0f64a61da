"""Traces as versioned JSON (never pickle): save a timeline, load it back for replay."""
import json
from pathlib import Path

import numpy as np

from blockviz.char_tokenizer import CharTokenizer
from blockviz.trace.events import event_from_dict
from blockviz.trace.recorder import Frame
from blockviz.trace.snapshot import BlockView, SeqView, Snapshot
from blockviz.trace.timeline import Timeline

FORMAT = "blockviz-trace"
VERSION = 1


class TraceError(ValueError):
    """A file that is not a readable blockviz trace."""


def snapshot_to_dict(s: Snapshot) -> dict:
    return {
        "step": s.step, "block_size": s.block_size,
        "blocks": [[b.ref_count, b.hash, list(b.token_ids)] for b in s.blocks],
        "free": list(s.free_block_ids), "used": sorted(s.used_block_ids),
        "map": [[h, block_id] for h, block_id in s.hash_to_block_id.items()],
        "seqs": [{"seq_id": q.seq_id, "label": q.label, "token_ids": list(q.token_ids),
                  "num_prompt_tokens": q.num_prompt_tokens, "num_cached_tokens": q.num_cached_tokens,
                  "block_table": list(q.block_table), "status": q.status, "max_tokens": q.max_tokens}
                 for q in s.seqs.values()],
        "waiting": list(s.waiting), "running": list(s.running), "is_prefill": s.is_prefill,
        "scheduled": [[seq_id, start, n] for seq_id, (start, n) in s.scheduled.items()],
    }


def snapshot_from_dict(d: dict) -> Snapshot:
    blocks = tuple(BlockView(i, ref, h, tuple(tokens)) for i, (ref, h, tokens) in enumerate(d["blocks"]))
    seqs = {q["seq_id"]: SeqView(q["seq_id"], q["label"], tuple(q["token_ids"]), q["num_prompt_tokens"],
                                 q["num_cached_tokens"], tuple(q["block_table"]), q["status"], q["max_tokens"])
            for q in d["seqs"]}
    return Snapshot(d["step"], d["block_size"], blocks, tuple(d["free"]), frozenset(d["used"]),
                    {h: block_id for h, block_id in d["map"]}, seqs, tuple(d["waiting"]), tuple(d["running"]),
                    d["is_prefill"], {seq_id: (start, n) for seq_id, start, n in d["scheduled"]})


class PieceTokenizer:
    """Decodes a loaded trace's tokens with the text of each token id saved beside it."""

    def __init__(self, pieces: dict[int, str]):
        self.pieces = pieces

    def decode(self, token_ids: list[int]) -> str:
        return "".join(self.pieces.get(t, f"<{t}>") for t in token_ids)


def token_pieces(timeline: Timeline, tokenizer) -> dict[str, str]:
    last = timeline.frames[len(timeline.frames) - 1].snapshot
    ids = {t for seq in last.seqs.values() for t in seq.token_ids}
    return {str(t): tokenizer.decode([t]) for t in sorted(ids)}


KV_VALUES = ("k", "v")  # traces saved before V was recorded have only "k"


def payload_to_dict(payload: dict | None) -> dict | None:
    if not payload:
        return None
    kv = payload.get("kv")
    if not kv:
        return None
    return {"kv": {**kv, **{name: kv[name].astype(float).round(4).tolist() for name in KV_VALUES if name in kv}}}


def payload_from_dict(data: dict | None) -> dict | None:
    if not data:
        return None
    kv = data["kv"]
    values = {name: np.asarray(kv[name], dtype=np.float16).reshape(len(kv["slots"]), -1)
              for name in KV_VALUES if name in kv}
    return {"kv": {**kv, **values}}


def trace_to_dict(timeline: Timeline) -> dict:
    tokenizer = getattr(timeline, "tokenizer", None)
    name = getattr(tokenizer, "trace_name", None)
    pieces = token_pieces(timeline, tokenizer) if tokenizer is not None and name is None else None
    return {"format": FORMAT, "version": VERSION, "meta": dict(timeline.meta),
            "tokenizer": name, "pieces": pieces,
            "frames": [{"step": f.step, "events": [e.to_dict() for e in f.events],
                        "snapshot": snapshot_to_dict(f.snapshot), "payload": payload_to_dict(f.payload)}
                       for f in timeline.frames]}


def save_trace(timeline: Timeline, path: str | Path):
    Path(path).write_text(json.dumps(trace_to_dict(timeline)), encoding="utf-8")


def load_trace(path: str | Path) -> Timeline:
    """Read a trace saved by save_trace. Raises TraceError saying what is wrong with the file."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TraceError(f"{path}: no such file") from None
    except UnicodeDecodeError as e:
        raise TraceError(f"{path}: not a blockviz trace (not UTF-8 text: {e.reason})") from None
    except json.JSONDecodeError as e:
        raise TraceError(f"{path}: not a blockviz trace, or truncated (invalid JSON at line {e.lineno}, "
                         f"column {e.colno}: {e.msg})") from None
    return trace_from_dict(data, str(path))


def trace_from_dict(data, source: str = "trace") -> Timeline:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise TraceError(f"{source}: not a blockviz trace (format is {found!r}, expected {FORMAT!r})")
    version = data.get("version")
    if not isinstance(version, int) or version > VERSION or version < 1:
        raise TraceError(f"{source}: trace version {version!r} is not supported (this blockviz reads 1..{VERSION})")
    frames = []
    for i, f in enumerate(data.get("frames") or []):
        try:
            events = tuple(event_from_dict(e) for e in f["events"])
            frames.append(Frame(f["step"], events, snapshot_from_dict(f["snapshot"]),
                                payload_from_dict(f.get("payload"))))
        except (KeyError, TypeError, ValueError, IndexError) as e:
            what = f"lacks field {e}" if isinstance(e, KeyError) else str(e)
            raise TraceError(f"{source}: frame {i} is malformed ({what})") from None
    if not frames:
        raise TraceError(f"{source}: the trace has no frames")
    timeline = Timeline(frames, data.get("meta") or {})
    if data.get("tokenizer") == "chars":
        timeline.tokenizer = CharTokenizer()
    elif data.get("pieces"):
        timeline.tokenizer = PieceTokenizer({int(t): text for t, text in data["pieces"].items()})
    return timeline
