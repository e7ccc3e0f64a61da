"""A lab run kept in a file: the stream, vLLM's side as it happened (replies, cached tokens, KV-event
steps), so it can be shown and explained again without a server (a lesson's recorded run).
The nano-vllm side is not stored: loading replays it, with this version's engine and rules."""
import json
from pathlib import Path

import msgspec

from blockviz.jsonfile import read_json
from blockviz.vllm.lab.outcome import Change, Key, Outcome
from blockviz.vllm.lab.run import LabResult, replay
from blockviz.vllm.lab.stream import LabRequest, check_stream

FORMAT = "blockviz-lab/1"


# --- what the file holds (msgspec checks the types and names the field at fault) ---

class ChangeRecord(msgspec.Struct):
    step: int
    stored: list[Key]
    evicted: list[Key]


class OutcomeRecord(msgspec.Struct):
    cached_tokens: int
    resident: list[Key]
    steps: list[ChangeRecord]


class RequestRecord(msgspec.Struct):
    tokens: tuple[int, ...]
    max_tokens: int
    follows: int | None
    group: int | None
    label: str | None


class LabFile(msgspec.Struct):
    format: str
    block_size: int
    vllm_blocks: int
    requests: list[RequestRecord]
    prompts: list[tuple[int, ...]]
    generated: list[tuple[int, ...]]
    vllm: list[OutcomeRecord]
    note: str = ""
    vllm_max_num_seqs: int | None = None


def _outcome(o: Outcome) -> dict:
    return {"cached_tokens": o.cached_tokens, "resident": sorted(list(k) for k in o.resident),
            "steps": [{"step": c.step, "stored": [list(k) for k in c.stored], "evicted": [list(k) for k in c.evicted]}
                      for c in o.steps]}


def save_lab(result: LabResult, path: str | Path, note: str = ""):
    """Write the run as JSON. note: where it was recorded (server, vLLM version), shown when loaded."""
    data = {"format": FORMAT, "note": note, "block_size": result.block_size, "vllm_blocks": result.vllm_blocks,
            "vllm_max_num_seqs": result.vllm_max_num_seqs,
            "requests": [{"tokens": list(r.tokens), "max_tokens": r.max_tokens, "follows": r.follows, "group": r.group,
                          "label": r.label} for r in result.requests],
            "prompts": [list(p) for p in result.prompts], "generated": [list(g) for g in result.generated],
            "vllm": [_outcome(o) for o in result.vllm]}
    Path(path).write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")


def load_lab(path: str | Path, record: bool = True) -> tuple[LabResult, str]:
    """(the result, with nano-vllm's side replayed now; the note it was saved with)."""
    data = read_json(path, LabFile)
    if data.format != FORMAT:
        raise ValueError(f"{path}: not a lab recording ({FORMAT}): format {data.format!r}")
    stream = check_stream([LabRequest(r.tokens, r.max_tokens, r.follows, r.group, r.label) for r in data.requests])
    vllm = [Outcome(o.cached_tokens, tuple(Change(c.step, tuple(c.stored), tuple(c.evicted)) for c in o.steps),
                    frozenset(o.resident)) for o in data.vllm]
    prompts, generated = data.prompts, data.generated
    if not len(stream) == len(prompts) == len(generated) == len(vllm):
        raise ValueError(f"{path}: {len(stream)} requests but {len(prompts)} prompts, {len(generated)} replies and "
                         f"{len(vllm)} vLLM outcomes")
    return (replay(stream, prompts, generated, vllm, data.block_size, data.vllm_blocks, record,
                   data.vllm_max_num_seqs), data.note)
