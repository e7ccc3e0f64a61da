"""A lab run kept in a file: the stream, vLLM's side as it happened (replies, cached tokens, KV-event
steps), so it can be shown and explained again without a server (a lesson's recorded run).
The nano-vllm side is not stored: loading replays it, with this version's engine and rules."""
import json
from pathlib import Path

from blockviz.vllm.lab.outcome import Change, Outcome
from blockviz.vllm.lab.run import LabResult, replay
from blockviz.vllm.lab.stream import LabRequest, check_stream
from blockviz.brief import brief

FORMAT = "blockviz-lab/1"


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
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if data.get("format") != FORMAT:
            raise ValueError(f"not a lab recording ({FORMAT}): format {data.get('format')!r}")
        stream = check_stream([LabRequest(tuple(r["tokens"]), r["max_tokens"], r["follows"], r["group"], r["label"])
                               for r in data["requests"]])
        vllm = [Outcome(o["cached_tokens"],
                        tuple(Change(c["step"], tuple(map(tuple, c["stored"])), tuple(map(tuple, c["evicted"])))
                              for c in o["steps"]),
                        frozenset(map(tuple, o["resident"]))) for o in data["vllm"]]
        prompts = [tuple(p) for p in data["prompts"]]
        generated = [tuple(g) for g in data["generated"]]
        block_size, blocks = data["block_size"], data["vllm_blocks"]
    except (KeyError, TypeError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: not a readable lab recording ({brief(e, 120)})") from None
    if not len(stream) == len(prompts) == len(generated) == len(vllm):
        raise ValueError(f"{path}: {len(stream)} requests but {len(prompts)} prompts, {len(generated)} replies and "
                         f"{len(vllm)} vLLM outcomes")
    return (replay(stream, prompts, generated, vllm, block_size, blocks, record, data.get("vllm_max_num_seqs")),
            data.get("note", ""))
