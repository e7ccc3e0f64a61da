"""Explain a can_allocate call block by block, without changing anything."""
from blockviz.engine.block_manager import BlockManager
from blockviz.engine.sequence import Sequence
from blockviz.recording.events import CacheProbe


def chain_of(bm: BlockManager, seq: Sequence) -> list[tuple[int, list[int]]]:
    """(hash, token ids) of each logical block of `seq`, each hash chained on the one before."""
    chain, h = [], -1
    for i in range(seq.num_blocks):
        token_ids = seq.block(i)
        h = bm.compute_hash(token_ids, h)
        chain.append((h, token_ids))
    return chain


def probe_chain(bm: BlockManager, seq: Sequence, chain: list[tuple[int, list[int]]] | None = None) -> list[CacheProbe]:
    """One CacheProbe per logical block, in the order can_allocate walks them (`chain`: the
    request's chain_of, when the caller already has it).

    Blocks after the first miss and the last block get a hash too (for the chain view),
    marked "skipped" / "not_probed", because can_allocate never looks them up.
    """
    if chain is None:
        chain = chain_of(bm, seq)
    probes = []
    walking = True
    last = len(chain) - 1
    hash_to_block_id, blocks, used = bm.hash_to_block_id, bm.blocks, bm.used_block_ids
    for i, (h, token_ids) in enumerate(chain):
        if i == last:
            probes.append(CacheProbe(seq.seq_id, i, h, "not_probed"))
            continue
        if not walking:
            probes.append(CacheProbe(seq.seq_id, i, h, "skipped"))
            continue
        block_id = hash_to_block_id.get(h, -1)
        if block_id == -1:
            outcome = "miss"
        elif blocks[block_id].token_ids != token_ids:
            outcome = "mismatch"
        elif block_id in used:
            outcome = "hit_used"
        else:
            outcome = "hit_free"
        walking = outcome.startswith("hit")
        probes.append(CacheProbe(seq.seq_id, i, h, outcome, block_id))
    return probes
