"""Keyframes: the whole engine at the end of a step, written into a trace file now and then, so a
loaded trace opens at any step by replaying from the keyframe before it instead of from step 0.

A keyframe holds what the engine needs to go on (blocks, free queue, hash map, the queues and
every unfinished request with its tokens), not the History's past: a replay resumed from one
knows nothing of requests that finished before it, as a bounded history forgets them too.
"""
import msgspec

from blockviz.checks import MAX_TOKEN_ID
from blockviz.config import Config
from blockviz.engine.sequence import Sequence, SequenceStatus
from blockviz.sampling_params import SamplingParams
from blockviz.recording.format import TraceError


class SeqState(msgspec.Struct, array_like=True):
    seq_id: int
    label: str
    arrived: int               # the step whose picture first shows it
    num_prompt_tokens: int
    token_ids: list[int]
    num_cached_tokens: int
    block_table: list[int]
    status: str                # "waiting" or "running"
    is_prefill: bool
    temperature: float
    max_tokens: int
    ignore_eos: bool


class BlockRecord(msgspec.Struct, array_like=True):
    block_id: int
    ref_count: int
    hash: int
    token_ids: list[int]


class KeyframeLine(msgspec.Struct, forbid_unknown_fields=True):
    keyframe: int              # the step it is the end of
    free: list[int]            # the free queue, head first
    blocks: list[BlockRecord]   # every block not in its first state (ref_count 0, no hash, no tokens)
    hash_map: list[tuple[int, int]]
    waiting: list[int]
    running: list[int]
    seqs: list[SeqState]


def keyframe_of(scheduler, labels: dict[int, str], arrived: dict[int, int], step: int) -> dict:
    """The line for the engine as it is now, the end of `step`: the requests in `arrived`, in its
    order, the order they arrived in (one added after the step is in a later line)."""
    bm = scheduler.block_manager
    queued = {s.seq_id: s for s in (*scheduler.waiting, *scheduler.running)}
    seqs = [queued[i] for i in arrived if i in queued]
    return {"keyframe": step, "free": list(bm.free_block_ids),
            "blocks": [[b.block_id, b.ref_count, b.hash, b.token_ids] for b in bm.blocks
                       if b.ref_count or b.hash != -1 or b.token_ids],
            "hash_map": list(bm.hash_to_block_id.items()),
            "waiting": [s.seq_id for s in scheduler.waiting if s.seq_id in arrived],
            "running": [s.seq_id for s in scheduler.running if s.seq_id in arrived],
            "seqs": [[s.seq_id, labels[s.seq_id], arrived[s.seq_id], s.num_prompt_tokens, s.token_ids,
                      s.num_cached_tokens, s.block_table, "running" if s.status == SequenceStatus.RUNNING else "waiting",
                      s.is_prefill, s.temperature, s.max_tokens, s.ignore_eos] for s in seqs]}


def restore(scheduler, kf: KeyframeLine, config: Config, where: str) -> dict[int, Sequence]:
    """Put a fresh scheduler into the keyframe's state, checking every value (a TraceError names
    the field). Returns the requests, by id."""
    n, B = config.num_kvcache_blocks, config.kvcache_block_size

    def fail(what: str):
        raise TraceError(f"{where}: {what}")

    def check_blocks(ids, field: str):
        if not all(0 <= b < n for b in ids):
            fail(f"{field}: a block id is outside the pool (0..{n - 1})")

    def check_tokens(ids, field: str):
        if not all(0 <= t <= MAX_TOKEN_ID for t in ids):
            fail(f"{field}: a token id is out of range (0..{MAX_TOKEN_ID})")

    check_blocks(kf.free, "free")
    if len(set(kf.free)) != len(kf.free):
        fail("free: a block is in the free queue twice")
    bm = scheduler.block_manager
    used = set(range(n)) - set(kf.free)
    for b in kf.blocks:
        check_blocks([b.block_id], "blocks")
        check_tokens(b.token_ids, f"blocks: block {b.block_id}")
        if (b.ref_count > 0) != (b.block_id in used) or b.ref_count < 0:
            fail(f"blocks: block {b.block_id} has ref_count {b.ref_count} but is "
                 f"{'in use' if b.block_id in used else 'in the free queue'}")
        block = bm.blocks[b.block_id]
        block.ref_count, block.hash, block.token_ids = b.ref_count, b.hash, list(b.token_ids)
    if any(bm.blocks[b].ref_count == 0 for b in used):
        fail("free: a block missing from the free queue has no reference")
    check_blocks([b for _, b in kf.hash_map], "hash_map")
    for h, b in kf.hash_map:  # nano-vllm drops an entry when its block is reset: the block keeps that hash
        if bm.blocks[b].hash != h:
            fail(f"hash_map: hash {h} points at block {b}, whose hash is {bm.blocks[b].hash}")
    bm.free_block_ids.clear()
    bm.free_block_ids.extend(kf.free)
    bm.used_block_ids.clear()
    bm.used_block_ids.update(used)
    bm.hash_to_block_id.clear()
    bm.hash_to_block_id.update(kf.hash_map)

    seqs: dict[int, Sequence] = {}
    for s in kf.seqs:
        field = f"seqs: request {s.seq_id}"
        check_tokens(s.token_ids, field)
        check_blocks(s.block_table, field)
        if any(b not in used for b in s.block_table):
            fail(f"{field}: block_table holds block {next(b for b in s.block_table if b not in used)}, "
                 f"which is in the free queue")
        if s.status not in ("waiting", "running") or s.arrived > kf.keyframe:
            fail(f"{field}: status must be waiting or running and arrived at most step {kf.keyframe}")
        if not 1 <= s.num_prompt_tokens <= len(s.token_ids) or not 0 <= s.num_cached_tokens <= len(s.token_ids):
            fail(f"{field}: num_prompt_tokens / num_cached_tokens do not fit its {len(s.token_ids)} tokens")
        if len(s.block_table) > (len(s.token_ids) + B - 1) // B or s.max_tokens < 1 or s.temperature < 0:
            fail(f"{field}: more blocks than its tokens fill, or max_tokens < 1, or temperature < 0")
        seq = Sequence(s.token_ids[:s.num_prompt_tokens], SamplingParams(s.temperature, s.max_tokens, s.ignore_eos),
                       block_size=B)
        seq.seq_id = s.seq_id
        seq.token_ids = list(s.token_ids)
        seq.num_tokens = len(seq.token_ids)
        seq.last_token = seq.token_ids[-1]
        seq.num_cached_tokens = s.num_cached_tokens
        seq.block_table = list(s.block_table)
        seq.is_prefill = s.is_prefill
        seq.status = SequenceStatus.RUNNING if s.status == "running" else SequenceStatus.WAITING
        seqs[seq.seq_id] = seq
    if sorted(kf.waiting + kf.running) != sorted(seqs) or len(set(kf.waiting + kf.running)) != len(seqs):
        fail("waiting/running: the queues must list every request of seqs once")
    if any(seqs[i].status != SequenceStatus.WAITING for i in kf.waiting):
        fail("waiting: a request in it is not waiting")
    if any(seqs[i].status != SequenceStatus.RUNNING for i in kf.running):
        fail("running: a request in it is not running")
    scheduler.waiting.extend(seqs[i] for i in kf.waiting)
    scheduler.running.extend(seqs[i] for i in kf.running)
    return seqs
