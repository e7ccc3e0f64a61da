"""Why paging: the same requests served from contiguous reservations, as systems before paging did.

Before paged attention, a serving system gave each admitted request one contiguous range of the
KV pool, sized up front for the longest it might grow (`max_model_len` slots), because a
contiguous tensor cannot grow in place. This module runs that policy over the same pool and the
same request stream as a Simulator, step by step, so a lesson can set, from code, what each
policy reserves against what it uses and how many requests each admits at once:

- `ContiguousPool`: a first-fit allocator of contiguous slot ranges;
- `run_contiguous(requests, ...)`: nano-vllm's step loop (a prefill step when a waiting request
  can be admitted, else one decode token for every running request) on top of it. The requests
  are blockviz.workload Requests (arrival: the steps run before a request comes), checked as a
  Workload whose blocks are single slots;
- `requests_of(timeline)`: the request stream a Simulator ran; `paged_usage(timeline)`: the same
  measures read from the paged engine's recording.

A slot holds one token's K/V (of every layer): "used" counts the slots whose K/V has been computed,
"reserved" the slots held for requests (ranges here, whole blocks in the paged engine).
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Literal, Sequence as Seq

from blockviz import checks
from blockviz.workload import Request, Workload, name_of


@dataclass(frozen=True)
class Usage:
    """One step of one policy, after the step ran."""
    step: int
    admitted: int   # requests holding memory
    waiting: int    # arrived, holding nothing
    reserved: int   # slots held for requests
    used: int       # slots whose K/V has been computed
    finished: int   # requests done so far


@dataclass
class Held:
    request: Request
    start: int            # first slot of its range
    size: int             # slots reserved
    computed: int = 0     # tokens whose K/V is in the range
    generated: int = 0    # completion tokens sampled


class ContiguousPool:
    """`num_slots` slots; `allocate(size)` returns the start of the lowest free range of `size`
    contiguous slots (first fit), or None when no free range is long enough."""

    def __init__(self, num_slots: int):
        self.num_slots = checks.whole("num_slots", num_slots, 1)
        self.ranges: dict[int, int] = {}  # start -> size, of the allocated ranges

    def free_ranges(self) -> list[tuple[int, int]]:
        """(start, size) of every maximal free range, lowest first."""
        out, at = [], 0
        for start in sorted(self.ranges):
            if start > at:
                out.append((at, start - at))
            at = start + self.ranges[start]
        if at < self.num_slots:
            out.append((at, self.num_slots - at))
        return out

    def allocate(self, size: int) -> int | None:
        checks.whole("size", size, 1)
        for start, free in self.free_ranges():
            if free >= size:
                self.ranges[start] = size
                return start
        return None

    def release(self, start: int):
        if start not in self.ranges:
            raise ValueError(f"no range starts at slot {start}")
        del self.ranges[start]

    @property
    def reserved(self) -> int:
        return sum(self.ranges.values())


@dataclass
class ContiguousRun:
    """The outcome: one Usage per step (step 0 before the first), and the ranges held after each."""
    num_slots: int
    usage: list[Usage] = field(default_factory=list)
    held: list[list[Held]] = field(default_factory=list)  # after each step, by start slot

    @property
    def num_steps(self) -> int:
        return len(self.usage) - 1


def run_contiguous(requests: Seq[Request], num_slots: int, max_model_len: int, max_num_seqs: int = 512,
                   max_num_batched_tokens: int = 16384,
                   reserve: Literal["max_model_len", "request"] = "max_model_len") -> ContiguousRun:
    """Serve `requests` from contiguous ranges of a pool of `num_slots` slots until all finish.

    Admission is nano-vllm's: FIFO from the head of the waiting queue, at most `max_num_seqs`
    running and `max_num_batched_tokens` prompt tokens a step; the head that does not fit blocks
    the rest. A request reserves `max_model_len` slots (`reserve="request"`: its own prompt plus
    max_tokens, the most it can hold if the system knew it) and keeps its range until it finishes,
    so it never has to be preempted. It finishes after `max_tokens` completion tokens; one that
    arrives after s steps is first scheduled in step s + 1."""
    checks.one_of("reserve", reserve, ("max_model_len", "request"))
    # The one workload check (a slot is a block of one token), then what only this policy refuses.
    workload = Workload(1, checks.whole("num_slots", num_slots, 1), list(requests), max_num_seqs=max_num_seqs,
                        max_num_batched_tokens=max_num_batched_tokens, max_model_len=max_model_len)
    for i, r in enumerate(workload.requests):
        size = size_of(r, max_model_len, reserve)
        if size > num_slots:
            raise ValueError(f"{name_of(i, r)} reserves {size} slots but the pool has only {num_slots}: "
                             f"it could never be admitted")
        if r.num_prompt_tokens > max_num_batched_tokens:
            raise ValueError(f"{name_of(i, r)}: a prompt of {r.num_prompt_tokens} tokens exceeds "
                             f"max_num_batched_tokens {max_num_batched_tokens} (this policy does not chunk)")
    pending = deque(workload.requests)  # in arrival order
    waiting: deque[Request] = deque()
    running: list[Held] = []
    finished = 0
    run = ContiguousRun(num_slots)

    def record(step: int):
        run.usage.append(Usage(step, len(running), len(waiting), pool.reserved,
                               sum(h.computed for h in running), finished))
        run.held.append(sorted((Held(h.request, h.start, h.size, h.computed, h.generated) for h in running),
                               key=lambda h: h.start))

    def arrive(steps_run: int):
        while pending and pending[0].arrival <= steps_run:
            waiting.append(pending.popleft())

    pool = ContiguousPool(num_slots)
    arrive(0)
    record(0)
    step = 0
    while finished < len(workload.requests):
        step += 1
        arrive(step - 1)
        batch, batched = [], 0
        while waiting and len(running) < max_num_seqs and batched + waiting[0].num_prompt_tokens <= max_num_batched_tokens:
            start = pool.allocate(size_of(waiting[0], max_model_len, reserve))
            if start is None:
                break
            request = waiting.popleft()
            held = Held(request, start, pool.ranges[start])
            running.append(held)
            batch.append(held)
            batched += request.num_prompt_tokens
        if batch:  # a prefill step: the prompts' K/V, and a first token each
            for h in batch:
                h.computed, h.generated = h.request.num_prompt_tokens, 1
        elif running:  # a decode step: the newest token's K/V, and one more token each
            batch = list(running)
            for h in batch:
                h.computed += 1
                h.generated += 1
        for h in batch:
            if h.generated == h.request.max_tokens:
                pool.release(h.start)
                running.remove(h)
                finished += 1
        record(step)
    return run


def size_of(request: Request, max_model_len: int, reserve: str) -> int:
    return max_model_len if reserve == "max_model_len" else request.num_prompt_tokens + request.max_tokens


def requests_of(timeline) -> list[Request]:
    """The requests a recorded run served, in arrival order, each arriving after the steps that had
    run when it was added (a request added before the first step shows in frame 0; one added after
    step s shows from frame s + 1 on, the step that can schedule it)."""
    last = timeline.snapshot(timeline.last_step)
    out = []
    for seq_id in last.seqs:
        seq = last.seqs[seq_id]
        seen = next(s for s in range(timeline.first_step, timeline.last_step + 1)
                    if seq_id in timeline.snapshot(s).seqs)
        out.append(Request(list(seq.token_ids[:seq.num_prompt_tokens]), seq.max_tokens, arrival=max(1, seen) - 1,
                           label=seq.label))
    return out


def paged_usage(timeline) -> list[Usage]:
    """The same measures from the paged engine's recording: requests holding blocks, slots of the
    blocks held (`len(used_block_ids) × B`) and slots whose K/V is computed (a shared block once)."""
    out = []
    for step in range(timeline.first_step, timeline.last_step + 1):
        snap = timeline.snapshot(step)
        B = snap.block_size
        filled: dict[int, int] = {}
        admitted = waiting = finished = 0
        for seq in snap.seqs.values():
            if seq.status == "finished":
                finished += 1
            elif seq.block_table:
                admitted += 1
                for i, block_id in enumerate(seq.block_table):
                    tokens = min(B, max(0, seq.num_cached_tokens - i * B))
                    filled[block_id] = max(filled.get(block_id, 0), tokens)
            else:
                waiting += 1
        out.append(Usage(step, admitted, waiting, len(snap.used_block_ids) * B, sum(filled.values()), finished))
    return out
