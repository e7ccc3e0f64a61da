"""An independent full copy of an engine's state, in the plain form Snapshot.plain() gives.

Written from the BlockManager's and Scheduler's own attributes, with nothing from blockviz.recording,
so a recording bug cannot sit on both sides of a comparison. is_prefill and scheduled describe
the step rather than the state, so they are taken from the picture under test (`like`)."""


def engine_picture(session, like=None) -> dict:
    sched = session.scheduler
    bm = sched.block_manager
    return {
        "step": session.num_steps,
        "block_size": bm.block_size,
        "blocks": [(b.ref_count, b.hash, tuple(b.token_ids)) for b in bm.blocks],
        "free": tuple(bm.free_block_ids),
        "used": sorted(bm.used_block_ids),
        "map": dict(bm.hash_to_block_id),
        "seqs": [(seq.seq_id, session.labels[seq.seq_id], tuple(seq.token_ids), seq.num_prompt_tokens,
                  seq.num_cached_tokens, tuple(seq.block_table), seq.status.name.lower(), seq.max_tokens)
                 for seq in session.seqs.values()],
        "waiting": tuple(seq.seq_id for seq in sched.waiting),
        "running": tuple(seq.seq_id for seq in sched.running),
        "is_prefill": None if like is None else like.is_prefill,
        "scheduled": {} if like is None else like.scheduled,
    }
