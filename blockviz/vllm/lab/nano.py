"""The nano-vllm side of the lab: the stream, with vLLM's generated tokens as the script, through
blockviz's Simulator (nano-vllm's Scheduler and BlockManager), optionally with some of vLLM's rules
put in (rules.py), which is how the lab finds the rule behind each difference.
"""
from functools import cache

from blockviz.engine.block_manager import BlockManager
from blockviz.engine.sequence import Sequence
from blockviz.policies import Policy, get as get_policy
from blockviz.policies.vllm import BLOCK_RULES, with_rules
from blockviz.sim import Simulator
from blockviz.vllm.lab.outcome import Change, Key, Outcome
from blockviz.vllm.lab.rules import RUNNING_CAP
from blockviz.workload import Driver, Request, Workload


class LabBlockManager:
    """What the lab compares, logged over a policy's BlockManager (lab_class): it only watches, so
    the run decides exactly as the policy, and a recording replays it."""

    def __init__(self, num_blocks: int, block_size: int):
        super().__init__(num_blocks, block_size)
        self.prefix_of: dict[int, Key] = {}     # hash -> the tokens of its whole prefix
        self.log: list[tuple[str, Key]] = []    # ("stored" | "evicted", key), in order
        self.refused: dict[int, int] = {}       # seq_id -> block index whose hash was found with other tokens

    def can_allocate(self, seq: Sequence) -> int:
        result = super().can_allocate(seq)
        if result != -1 and result < seq.num_blocks - 1:   # why the walk stopped: a miss, or the token check
            h = -1
            for i in range(result + 1):
                h = self.compute_hash(seq.block(i), h)
            block_id = self.hash_to_block_id.get(h, -1)
            if block_id != -1 and self.blocks[block_id].token_ids != seq.block(result):
                self.refused[seq.seq_id] = result
        return result

    def _allocate_block(self) -> int:
        block = self.blocks[self.free_block_ids[0]]
        if block.hash != -1 and self.hash_to_block_id.get(block.hash) == block.block_id:
            self.log.append(("evicted", self.prefix_of[block.hash]))
        return super()._allocate_block()

    def hash_blocks(self, seq: Sequence):
        start = seq.num_cached_tokens // self.block_size
        end = (seq.num_cached_tokens + seq.num_scheduled_tokens) // self.block_size
        cached = set(self.hash_to_block_id) if start < end else set()
        super().hash_blocks(seq)
        for i in range(start, end):
            key, block = tuple(seq.token_ids[:(i + 1) * self.block_size]), self.blocks[seq.block_table[i]]
            self.prefix_of[block.hash] = key
            if block.hash not in cached:   # new content; a second copy of cached content is not (as vLLM's copies)
                self.log.append(("stored", key))
                cached.add(block.hash)

    def resident(self) -> frozenset[Key]:
        return frozenset(self.prefix_of[h] for h in self.hash_to_block_id)


Played = tuple[tuple[int, ...], tuple[int, ...]]   # (prompt, generated tokens) of one request


@cache
def lab_policy(rules: frozenset[str]) -> Policy:
    """The block policy with these of vLLM's block rules (none: nano-vllm's; all: "vllm"), watched by
    the lab's log. One Policy per set, so its classes are built once."""
    rules = rules & frozenset(BLOCK_RULES)
    if rules in (frozenset(), frozenset(BLOCK_RULES)):
        policy = get_policy("vllm" if rules else "nano-vllm")
        name, base = policy.name, policy.block_manager
    else:
        name, base = f"vllm ({' + '.join(sorted(rules, key=BLOCK_RULES.index))} only)", with_rules(rules)
    return Policy(name, lab_class(base), get_policy("vllm").follows if rules else get_policy("nano-vllm").follows)


@cache
def lab_class(block_manager: type[BlockManager]) -> type[BlockManager]:
    return type(f"Lab{block_manager.__name__}", (LabBlockManager, block_manager), {"__module__": __name__})


def run_nano(batches: list[list[Played]], num_blocks: int, block_size: int,
             rules: frozenset[str] = frozenset(), record: bool = False,
             max_num_seqs: int | None = None) -> tuple[Simulator, list[Outcome]]:
    """Each batch added at once and run to completion (a Workload on the turns clock, one turn a
    batch), each request generating exactly its script (with rules.RUNNING_CAP, a batch is handed
    over so that at most `max_num_seqs`, vLLM's, are unfinished at once). Returns the simulator (its
    recording, with record=True) and one Outcome per request, in order."""
    if RUNNING_CAP in rules and max_num_seqs is None:
        raise ValueError("the running_cap rule needs vLLM's max_num_seqs")
    requests = [Request(list(prompt), len(generated), arrival=turn, script=list(generated), ignore_eos=True)
                for turn, batch in enumerate(batches) for prompt, generated in batch]
    longest = max(len(p) + len(g) for batch in batches for p, g in batch)
    workload = Workload(block_size, num_blocks, requests, max_model_len=max(longest, 1), clock="turns")
    sim = workload.simulator(eos=-1, record=record, policy=lab_policy(frozenset(rules)))
    bm = sim.scheduler.block_manager
    outcomes: list[Outcome] = []
    with Driver(workload, sim, max_unfinished=max_num_seqs if RUNNING_CAP in rules else None) as driver:
        served, start, changes = driver.played.served, 0, []
        while not driver.done:
            driver.admit()
            seen = len(bm.log)
            sim.step()
            driver.stepped()
            done = bm.log[seen:]
            changes.append(Change(sim.num_steps, tuple(k for kind, k in done if kind == "stored"),
                                  tuple(k for kind, k in done if kind == "evicted")))
            if sim.is_finished() and (driver.all_added or workload.requests[driver.next].arrival > driver.turn):
                resident = bm.resident()   # the batch has finished: what each of its requests leaves behind
                outcomes += [Outcome(s.first_cached_tokens, tuple(changes), resident, bm.refused.get(s.seq.seq_id))
                             for s in served[start:driver.next]]
                start, changes = driver.next, []
    return sim, outcomes
