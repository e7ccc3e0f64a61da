"""Running a scenario up to a step, and one block's reference count over the whole run."""
from __future__ import annotations

from blockviz.queries import steps
from blockviz.workload import play


def ref_history(timeline, block_id: int) -> list[tuple[int, int, str]]:
    """(step, ref_count, state) of one block after every kept step."""
    from blockviz.states import classify_block
    return [(step, timeline.snapshot(step).blocks[block_id].ref_count,
             classify_block(timeline.snapshot(step), block_id).value) for step in steps(timeline)]


def advance_to(scenario, sim, step: int) -> list:
    """Run a scenario's requests on `sim` until `step` engine steps have run (requests arriving at
    `step` are added, not yet scheduled). Returns the sequences added."""
    return [s.seq for s in play(scenario.workload, sim, until=step).served if s.seq is not None]
