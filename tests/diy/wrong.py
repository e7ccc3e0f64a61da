"""Known wrong BlockManagers, each the engine's method with one line changed (blockviz.diy.mutants),
with the fields its first differing step may name and the engine's step that first exercises it."""
from dataclasses import dataclass
from typing import Callable

from blockviz.diy.mutants import mutant
from blockviz.recording import events as ev


@dataclass(frozen=True)
class Wrong:
    cls: type
    stage: str
    fields: tuple[str, ...]                      # the first differing step names one of these
    first: Callable[[object, dict], bool]        # does this engine step (frame, seqs) exercise the bug?


def allocates(frame, seqs) -> bool:
    return any(isinstance(e, ev.BlockAllocated) for e in frame.events)


def shares(frame, seqs) -> bool:
    return any(isinstance(e, ev.BlockShared) for e in frame.events)


def evicts_for_good(frame, seqs) -> bool:
    """A block is reused and its old hash is gone from the map after the step (the same content may
    be registered again within the step: then the map ends the same either way)."""
    return any(isinstance(e, ev.BlockAllocated) and e.evicted_hash != -1
               and e.evicted_hash not in frame.snapshot.hash_to_block_id for e in frame.events)


def computes_a_partial_block(frame, seqs) -> bool:
    """A scheduled request ends this step's computed tokens inside a block."""
    block_size = frame.snapshot.block_size
    return any((start + n) % block_size for e in frame.events if isinstance(e, ev.Scheduled)
               for start, n in zip(e.starts, e.num_tokens))


def frees_several_blocks_of_one_request(frame, seqs) -> bool:
    freed: dict[int, int] = {}
    for e in frame.events:
        if isinstance(e, ev.BlockReleased) and e.ref_count == 0:
            freed[e.seq_id] = freed.get(e.seq_id, 0) + 1
    return any(n >= 2 for n in freed.values())


WRONG = {
    "pops the free queue's tail": Wrong(
        mutant("PopTail", "_allocate_block", "self.free_block_ids.popleft()", "self.free_block_ids.pop()"),
        "allocate", ("free_block_ids", "block_table"), allocates),  # the queue, or (all taken) the tables
    "forgets ref_count on a hit": Wrong(
        mutant("NoRefOnHit", "allocate", "block.ref_count += 1", "pass"), "allocate", ("ref_count",), shares),
    "leaves the evicted hash in the map": Wrong(
        mutant("KeepsMap", "_allocate_block", "del self.hash_to_block_id[block.hash]", "pass"),
        "allocate", ("hash_to_block_id",), evicts_for_good),
    "hashes the partial last block": Wrong(
        mutant("HashesPartial", "hash_blocks",
                "end = (seq.num_cached_tokens + seq.num_scheduled_tokens) // self.block_size",
                "end = -(-(seq.num_cached_tokens + seq.num_scheduled_tokens) // self.block_size)"),
        "hash_blocks", ("hash",), computes_a_partial_block),
    "deallocates in the wrong order": Wrong(
        mutant("ForwardRelease", "deallocate", "reversed(seq.block_table)", "seq.block_table"),
        # the free queue's order; or, when the step hands the freed blocks out again (a preemption
        # mid-decode), the tables that received them in the other order
        "deallocate", ("free_block_ids", "block_table"), frees_several_blocks_of_one_request),
}
