"""Everything a rejected input must leave as it was: the scheduler's queues, the pool, the
session's requests, scripts and recording. (Not Sequence.counter: as in nano-vllm it is one
counter for the whole process, whose ids need only be unique, so a refused Sequence may use one.)"""


def engine_state(session) -> tuple:
    bm = session.scheduler.block_manager
    return (
        [s.seq_id for s in session.scheduler.waiting], [s.seq_id for s in session.scheduler.running],
        [(b.ref_count, b.hash, list(b.token_ids)) for b in bm.blocks],
        list(bm.free_block_ids), sorted(bm.used_block_ids), dict(bm.hash_to_block_id),
        {i: (list(s.token_ids), list(s.block_table), s.status) for i, s in session.seqs.items()},
        dict(session.labels), session.num_steps, len(session.pending_arrivals), dict(getattr(session, "scripts", {})),
    )


def unchanged_by(session, attempt) -> BaseException | None:
    """Run attempt(); it may raise ValueError. Returns the error, after checking nothing changed
    if it raised (a rejected input changes nothing)."""
    before = engine_state(session)
    try:
        attempt()
    except ValueError as e:
        assert engine_state(session) == before, f"rejected ({e}) but the engine changed"
        return e
    return None

