"""Explain a can_allocate call block by block, without changing anything."""
from blockviz.engine.block_manager import BlockManager
from blockviz.engine.sequence import Sequence
from blockviz.trace.events import CacheProbe


def probe_chain(bm: BlockManager, seq: Sequence) -> list[CacheProbe]:
    """One CacheProbe per logical block, in the order can_allocate walks them.

    Blocks after the first miss and the last block get a hash too (for the chain view),
    marked "skipped" / "not_probed", because can_allocate never looks them up.
    """
    probes = []
    h = -1
    walking = True
    for i in range(seq.num_blocks):
        token_ids = seq.block(i)
        h = bm.compute_hash(token_ids, h)
        if i == seq.num_blocks - 1:
            probes.append(CacheProbe(seq.seq_id, i, h, "not_probed"))
            continue
        if not walking:
            probes.append(CacheProbe(seq.seq_id, i, h, "skipped"))
            continue
        block_id = bm.hash_to_block_id.get(h, -1)
        if block_id == -1:
            outcome = "miss"
        elif bm.blocks[block_id].token_ids != token_ids:
            outcome = "mismatch"
        elif block_id in bm.used_block_ids:
            outcome = "hit_used"
        else:
            outcome = "hit_free"
        walking = outcome.startswith("hit")
        probes.append(CacheProbe(seq.seq_id, i, h, outcome, block_id))
    return probes
