"""The recording: each step's packed events, plus every value the views read kept as Versions.

A step's picture (recording/snapshot.py) is a Snapshot(history, step) that reads these Versions at
that step: building it copies nothing, and memory grows with what changed (blocks, hashes,
requests that were touched), not with the pool size or the context lengths. Token ids are kept
once per request in one append-only list. A bounded history (`forget_before`) drops the steps
before a window and every version no later step can read.
"""
from array import array
from bisect import bisect_right
from dataclasses import dataclass

import numpy as np

from blockviz.recording.events import Event, ProbesOf, unpack_events
from blockviz.recording.versions import Versions


@dataclass(frozen=True, slots=True)
class BlockView:
    block_id: int
    ref_count: int
    hash: int
    token_ids: tuple[int, ...]


EMPTY_TABLE: tuple = ((), 0)


class SeqHistory:
    """One request over time. token_ids is append-only (a request never loses a token, even when
    preempted), so its length at a step says which tokens it had then."""
    __slots__ = ("seq_id", "label", "token_ids", "num_prompt_tokens", "max_tokens", "arrived",
                 "kept", "gap", "table", "status", "place", "probes", "epoch", "length")

    def __init__(self, seq_id: int, label: str, token_ids: list[int], num_prompt_tokens: int,
                 max_tokens: int, arrived: int):
        self.seq_id, self.label, self.token_ids = seq_id, label, token_ids
        self.num_prompt_tokens, self.max_tokens, self.arrived = num_prompt_tokens, max_tokens, arrived
        self.kept = array("q")    # the step at which each completion token was appended
        self.gap = Versions()     # num_tokens - num_cached_tokens: changes at admission, chunks, release
        self.table = Versions()   # (block ids of this allocation, how many of them are in the table)
        self.status = Versions()
        self.place = Versions()   # its order key in the queue its status names (waiting or running)
        self.probes = Versions()  # its last can_allocate walk, packed (see events.ProbesOf)
        self.epoch: list[int] = []  # the current allocation's block ids, appended as the table grows
        self.length = 0             # how many of them are in the table now

    def table_rewritten(self):
        """An entry of the table changed in place (policy "sglang": an insert points it at the tree's
        page, events.PageDeduplicated): the next update keeps the table as a new list, since the
        current one is shared with the versions before."""
        self.length = -1

    def num_tokens(self, step: int) -> int:
        return self.num_prompt_tokens + bisect_right(self.kept, step)

    def update(self, step: int, num_tokens: int, num_cached_tokens: int, block_table, status: str):
        missing = num_tokens - self.num_prompt_tokens - len(self.kept)
        if missing == 1:
            self.kept.append(step)  # a decode step: one more token, nothing else changes mostly
        elif missing > 1:
            self.kept.extend([step] * missing)
        gap = num_tokens - num_cached_tokens
        if gap != self.gap.last:
            self.gap.set(step, gap)
        if status is not self.status.last:
            self.status.set(step, status)
        n = len(block_table)
        length = self.length
        if n == length:
            return
        if n == 0:
            self.epoch = []
        elif length <= 0 or n < length:  # a new allocation (after a release, or the first), or a rewritten table
            self.epoch = list(block_table)
        else:
            self.epoch.extend(block_table[length:])
        self.length = n
        self.table.set(step, (self.epoch, n))


def inverse(order: list[int]) -> list[int]:
    """place[block_id] for a queue order (block ids start with tickets 0..N-1 in that order)."""
    place = [0] * len(order)
    for i, block_id in enumerate(order):
        place[block_id] = i
    return place


HEAD_TICKETS = 1 << 40   # room below the first tickets for blocks moved to the head of the free queue


class History:

    def __init__(self, block_size: int, num_blocks: int, free_order: list[int] | None = None, start: int = 0):
        """`free_order`: the free queue at `start` (every block id once; default 0..N-1). A history
        may start at a later step (a picture of a live engine, a segment of a saved trace)."""
        self.block_size = block_size
        self.num_blocks = num_blocks
        self.initial_order_array = np.arange(num_blocks) if free_order is None else np.array(free_order)
        self.first_step = start           # the oldest step still kept
        self.num_steps = start            # the step being written next (the last one is num_steps - 1)
        self.packed: list[bytes] = []     # events of step first_step + i
        self.payloads: dict[int, dict] = {}
        self.blocks: dict[int, Versions] = {}   # only blocks that ever changed
        self.tickets: dict[int, Versions] = {}  # place in the free queue (-1: in use)
        # blocks start with tickets HEAD_TICKETS + 0..N-1 in the initial order; a block that joins the
        # tail takes the next larger one, one moved to the head the next smaller one (never below 0)
        self.next_ticket = HEAD_TICKETS + num_blocks
        self.next_head = HEAD_TICKETS - 1
        self.initial_ticket = range(HEAD_TICKETS, HEAD_TICKETS + num_blocks) if free_order is None else \
            array("q", (HEAD_TICKETS + place for place in inverse(free_order)))
        self.hashes: dict[int, Versions] = {}   # hash -> block id it maps to (-1: not in the map)
        self.seqs: dict[int, SeqHistory] = {}   # in arrival order
        self.next_back, self.next_front = 0, 0  # order keys: a queue lists its requests by key
        # step -> blocks whose value, free-queue ticket or map entry that step wrote: what a picture
        # of the whole pool re-reads to go from one step to the next (recording/columns.py)
        self.changed: dict[int, array] = {}
        self.columns_kept: dict = {}            # step -> PoolColumns, kept by recording/columns.py
        # a policy with a radix tree (policy "sglang"): its (page_size, eviction policy), and per node
        # that ever existed its NodeView over time (None once evicted), see recording/radix_tree.py
        self.tree_config: tuple[int, str] | None = None
        self.tree_nodes: dict[int, Versions] = {}

    # --- writing ----------------------------------------------------------------------------

    def _changed(self, step: int, block_id: int):
        ids = self.changed.get(step)
        if ids is None:
            ids = self.changed[step] = array("q")
        ids.append(block_id)

    def set_block(self, step: int, view: BlockView):
        self._changed(step, view.block_id)
        versions = self.blocks.get(view.block_id)
        if versions is None:
            versions = self.blocks[view.block_id] = Versions()
        versions.set(step, view)

    def leave_free_queue(self, step: int, block_id: int):
        self._changed(step, block_id)
        self._ticket(block_id).set(step, -1)

    def join_free_queue(self, step: int, block_id: int):
        self._changed(step, block_id)
        self._ticket(block_id).set(step, self.next_ticket)
        self.next_ticket += 1

    def move_to_free_queue_head(self, step: int, block_ids: tuple[int, ...]):
        """These free blocks go to the head of the free queue, in this order (a block policy's
        choice, events.FreedToHead): tickets below every other, counting down from HEAD_TICKETS."""
        for block_id in reversed(block_ids):
            self._changed(step, block_id)
            self._ticket(block_id).set(step, self.next_head)
            self.next_head -= 1

    def _ticket(self, block_id: int) -> Versions:
        versions = self.tickets.get(block_id)
        if versions is None:
            versions = self.tickets[block_id] = Versions()
        return versions

    def set_hash(self, step: int, h: int, block_id: int):
        versions = self.hashes.get(h)
        if versions is None:
            versions = self.hashes[h] = Versions()
        was = versions.last
        if was is not None and was != -1:
            self._changed(step, was)  # the block it mapped to: may turn stale
        if block_id != -1:
            self._changed(step, block_id)
        versions.set(step, block_id)

    def set_node(self, step: int, node_id: int, view):
        """The radix tree's node `node_id` after this step: a NodeView, or None (evicted)."""
        versions = self.tree_nodes.get(node_id)
        if versions is None:
            versions = self.tree_nodes[node_id] = Versions()
        versions.set(step, view)

    def add_seq(self, seq: SeqHistory):
        self.seqs[seq.seq_id] = seq

    def to_back(self, step: int, seq_id: int):
        """The request joined the tail of its queue (an arrival; an admission joins running)."""
        self.seqs[seq_id].place.set(step, self.next_back)
        self.next_back += 1

    def to_front(self, step: int, seq_id: int):
        """The request went back to the head of waiting (preempted)."""
        self.next_front -= 1
        self.seqs[seq_id].place.set(step, self.next_front)

    def set_queues(self, step: int, waiting: tuple[int, ...], running: tuple[int, ...]):
        """Both queues in full (a picture that is not built from a step's events)."""
        for queue in (waiting, running):
            for seq_id in queue:
                self.to_back(step, seq_id)  # keys go on from here: later arrivals queue behind them

    def queue(self, status: str, step: int) -> tuple[int, ...]:
        members = [(seq.place.at(step), seq.seq_id) for seq in self.seqs.values()
                   if seq.arrived <= step and seq.status.at(step) == status]
        return tuple(seq_id for _, seq_id in sorted(members))

    def end_step(self, packed_events: bytes, payload: dict | None = None):
        """Close the step being written: its events (packed) and what only the live run knew."""
        if payload:
            self.payloads[self.num_steps] = payload
        self.packed.append(packed_events)
        self.num_steps += 1

    # --- reading ----------------------------------------------------------------------------

    @property
    def last_step(self) -> int:
        return self.num_steps - 1

    def check_step(self, step: int) -> int:
        if not self.first_step <= step <= self.last_step:
            if 0 <= step < self.first_step:
                raise IndexError(f"step {step} is no longer kept: this session keeps a bounded history "
                                 f"(steps {self.first_step}..{self.last_step})")
            raise IndexError(f"step {step} is not recorded (steps {self.first_step}..{self.last_step})")
        return step

    def events(self, step: int) -> tuple[Event, ...]:
        events = unpack_events(self.packed[self.check_step(step) - self.first_step])
        if not any(type(e) is ProbesOf for e in events):
            return events
        expanded = []
        for e in events:
            if type(e) is ProbesOf:
                expanded.extend(unpack_events(self.seqs[e.seq_id].probes.at(step)))
            else:
                expanded.append(e)
        return tuple(expanded)

    def payload(self, step: int) -> dict | None:
        return self.payloads.get(step)

    def block(self, block_id: int, step: int) -> BlockView:
        versions = self.blocks.get(block_id)
        view = versions.at(step) if versions is not None else None
        return view if view is not None else BlockView(block_id, 0, -1, ())

    def tree_nodes_at(self, step: int) -> list:
        """The radix tree's nodes at this step (NodeViews)."""
        found = (versions.at(step) for versions in self.tree_nodes.values())
        return [view for view in found if view is not None]

    def ticket(self, block_id: int, step: int) -> int:
        versions = self.tickets.get(block_id)
        ticket = versions.at(step) if versions is not None else None
        return self.initial_ticket[block_id] if ticket is None else ticket

    # --- a bounded window ---------------------------------------------------------------------

    def forget_before(self, step: int):
        """Keep steps >= `step` only: drop older events, versions and requests finished before it."""
        step = min(step, self.last_step)
        if step <= self.first_step:
            return
        del self.packed[:step - self.first_step]
        for old in [s for s in self.payloads if s < step]:
            del self.payloads[old]
        for old in [s for s in self.changed if s <= step]:  # a picture of `step` is read whole
            del self.changed[old]
        for old in [s for s in self.columns_kept if s < step]:
            del self.columns_kept[old]
        for table in (self.blocks, self.tickets):
            for versions in table.values():
                versions.forget_before(step)
        for h in [h for h, v in self.hashes.items() if v.last == -1 and v.last_step <= step]:
            del self.hashes[h]  # out of the map since before the window: no kept step can see it
        for versions in self.hashes.values():
            versions.forget_before(step)
        for node_id in [i for i, v in self.tree_nodes.items() if v.last is None and v.last_step <= step]:
            del self.tree_nodes[node_id]  # evicted before the window
        for versions in self.tree_nodes.values():
            versions.forget_before(step)
        for seq_id in [i for i, s in self.seqs.items() if s.status.last == "finished" and s.status.last_step < step]:
            del self.seqs[seq_id]
        for seq in self.seqs.values():
            seq.gap.forget_before(step)
            seq.table.forget_before(step)
            seq.status.forget_before(step)
            seq.place.forget_before(step)
            seq.probes.forget_before(step)
        self.first_step = step
