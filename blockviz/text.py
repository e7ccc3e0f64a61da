"""Plain text of the pool: a hash's short form, big counts in groups, and a snapshot written out for
terminals, doctests and docs (`print(sim)`, `blockviz simulate`). It sits below the views because a
Simulator prints itself; the views draw the same state as SVG and share these helpers."""
from typing import Callable

import numpy as np

from blockviz.states import BlockState, classify
from blockviz.recording.snapshot import Snapshot

Decode = Callable[[tuple[int, ...]], str]

# A GPU sizes the pool from free memory (tens of thousands of blocks) while a few requests use a
# few hundred: in pools this large, long runs of idle blocks are written (and drawn: render_pool's
# fold_runs) folded.
FOLD_ABOVE = 2048


def short_hash(h: int, digits: int = 6) -> str:
    """The first hex digits of a 64-bit hash; '-' for no hash (-1)."""
    return "-" if h == -1 else f"{h:016x}"[:digits]


def full_hash(h: int) -> str:
    return "-1 (none)" if h == -1 else f"{h:016x} ({h})"


def grouped(n: int) -> str:
    """Digits in groups of three, as the docs write big counts: 65 535."""
    return f"{n:,}".replace(",", " ")


def render_text(snapshot: Snapshot, decode: Decode | None = None) -> str:
    decode = decode or (lambda ids: " ".join(map(str, ids)))
    phase = {None: "start", True: "prefill", False: "decode"}[snapshot.is_prefill]
    lines = [f"step {snapshot.step} · {phase} · block size {snapshot.block_size} · "
             f"{snapshot.num_blocks} blocks, {len(snapshot.free_block_ids)} in the free queue"]
    states = classify(snapshot)
    width = max(len(s.value) for s in states) if states else 0
    run: list[int] = []  # consecutive never-used free blocks print as one line

    def flush():
        if len(run) > 2:
            lines.append(f"  #{run[0]}..#{run[-1]} free ({len(run)} blocks, no content)")
        else:
            lines.extend(f"  #{b:<3} {'free':<{width}}  ref 0  hash -" for b in run)
        run.clear()

    for block, state in zip(snapshot.blocks, states):
        if state is BlockState.FREE:
            run.append(block.block_id)
            continue
        flush()
        text = repr(decode(block.token_ids)) if block.token_ids else ""
        lines.append(f"  #{block.block_id:<3} {state.value:<{width}}  ref {block.ref_count}  "
                     f"hash {short_hash(block.hash):<6}  {text}".rstrip())
    flush()
    lines.append("free queue (next allocation first): " + (queue_text(snapshot) or "empty"))
    labels = {seq_id: seq.label for seq_id, seq in snapshot.seqs.items()}
    lines.append("waiting: " + (" ".join(labels[i] for i in snapshot.waiting) or "-"))
    lines.append("running: " + (" ".join(labels[i] for i in snapshot.running) or "-"))
    for seq in snapshot.seqs.values():
        prompt = decode(seq.token_ids[:seq.num_prompt_tokens])
        completion = decode(seq.completion_token_ids)
        now = snapshot.scheduled.get(seq.seq_id)
        doing = f"  computed {now[1]} at {now[0]}" if now else ""
        # kv: tokens whose K/V is in the pool, hit or computed (nano-vllm's num_cached_tokens; 0 once
        # the request is preempted or finished): not the prefix cache's hits
        lines.append(f"{seq.label}: {seq.status:<8} tokens {seq.num_tokens}  kv {seq.num_cached_tokens}  "
                     f"table {list(seq.block_table)}{doing}  {prompt!r} → {completion!r}")
    return "\n".join(lines)


def queue_text(snapshot: Snapshot) -> str:
    """The free queue's block ids; in a pool of more than FOLD_ABOVE blocks (sized from GPU memory),
    each run of three or more consecutive ids as first..last."""
    free = snapshot.free_block_ids
    if snapshot.num_blocks <= FOLD_ABOVE or not free:
        return " ".join(map(str, free))
    ids = np.fromiter(free, np.int64, len(free))
    parts, start = [], 0
    for end in np.flatnonzero(np.diff(ids) != 1).tolist() + [len(ids) - 1]:
        run = ids[start:end + 1].tolist()
        parts.append(f"{run[0]}..{run[-1]}" if len(run) > 2 else " ".join(map(str, run)))
        start = end + 1
    return " ".join(parts)
