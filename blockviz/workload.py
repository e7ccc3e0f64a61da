"""A workload: a pool's settings and timed requests, checked once and played by one driver.

Every source of requests is read into this type: scenario files (blockviz.scenarios), exercise
set-ups, the build-it-yourself checker's random workloads, contiguous allocation's comparison,
lesson 10's recordings, the policy lab's streams, and serving traces (blockviz.traffic).

    Workload(block_size=4, num_blocks=8, requests=[Request("hello world", max_tokens=3)])

- `Request(prompt, max_tokens=4, arrival=0, label=None, script=None, ignore_eos=False)`. A prompt is
  text (one token per character, as the Simulator's tokenizer reads it), a list of token ids, or a
  `LazyPrompt(length, make)`: its length known now, its token ids made by `make()` only when the
  request is added, so a trace of 145M prompt tokens is never held at once (an LLM session
  tokenizes text with its own tokenizer: the checks below count characters then; give token ids
  to check exact lengths). `script`: the tokens the Simulator 'generates' for it, in order (then
  its token rule).
- `Workload(block_size, num_blocks, requests, max_num_seqs=512, max_num_batched_tokens=16384,
  free_order=None, max_model_len=None, clock="steps", when_idle="refuse")`. Requests are kept in
  arrival order (stable: ties keep the order given). `clock="steps"`: a request's arrival is the
  number of engine steps run before it is added; `clock="seconds"`: a time in seconds, turned into
  steps by the driver's step-time model. `when_idle` (steps clock only): what an engine with
  nothing to run does before a later arrival: "refuse" (an error: the steps named cannot be
  reached), "advance" (the next arrivals are added now, sooner than named) or "shift" (the next
  arrivals are added now and every later one as many steps sooner: the gaps between arrivals are
  kept, the demo's one request every N steps after the last). On the seconds clock
  an idle engine always waits: time jumps to the next arrival, no step runs. `clock="turns"`: a
  closed-loop client; arrival is a turn number, and a turn's requests are added together once
  every request of the turns before has finished (the policy lab's streams, lesson 10's requests
  sent one after another).
- Checked when built: any bad value raises ValueError naming the request (number, and label if it
  has one) and the field, before an engine exists: types, labels unique, prompt + max_tokens within
  max_model_len and the pool. `request(index, **fields)` builds one with the same naming, for
  readers of files. A LazyPrompt's ids are checked by the engine's add when they are made. The
  Simulator's own limits (blockviz/checks.py, e.g. at most 4 194 304 blocks) apply when it is built.
- `play(workload, engine=None, step_time=None, max_steps=None, on_step=None, temperature=0.0,
  until=None, max_unfinished=None) -> Played`: the one driver. `engine`: a Simulator or an LLM session built for the
  pool (default: `workload.simulator()`; an LLM session samples at `temperature`, greedy by
  default, and takes no script). Before each step it adds every request whose time has come; it
  ends when every request has finished (`until`: once that many steps have run), or raises
  ValueError when `max_steps` run out first. `on_step(engine, batch)` is called after each step.
  `max_unfinished`: a client that keeps at most this many requests in the engine (waiting or
  running); the others wait, in order, until one finishes, even when their time has come.
  O(requests + steps): arrivals are read in order once, and per step it looks only at the batch
  that ran. `Driver(workload, engine)` is the same driver a step at a time (`admit()` before a
  step, `stepped()` after it, then `finished`: the requests that step finished) for a caller
  that steps the engine itself; `run_quiet(most)` in place of a step, for an engine that takes the
  steps deciding nothing at once (the trace replay's TraceSimulator).
- `step_time(batch) -> seconds`: the seconds clock's model of a step's duration from what it
  scheduled (`Batch`, kept as Session.last_batch: seqs, is_prefill, num_seqs, num_tokens). Default
  `linear_step_time`: 15 ms a step plus 50 µs a scheduled token (a decode step of a few requests
  ~15 ms; an 8k-token prefill ~0.4 s, the order of a 7-8B model on one datacenter GPU). Any
  callable of that shape plugs in.
- `Played`: the engine, `seconds_at` (seconds clock: the time after each step), and per request
  (`served`, in arrival order; `by_label`) a `Served`: its Sequence, the step (and time) it was
  added and finished, the cached tokens at each admission (prefix-cache hits, counted by
  blockviz.hits: the first admission, `first_cached_tokens`, then one per re-admission after a
  preemption) and its preemptions. Everything else a replay
  needs is in the engine's own recording (Simulator(record=True): frames and events), which this
  does not copy.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any, Callable, Literal, Sequence as Seq

import numpy as np

from blockviz import checks
from blockviz.engine.sequence import Sequence, SequenceStatus
from blockviz.hits import AdmissionWatch
from blockviz.limits import blocks_needed
from blockviz.sampling_params import SamplingParams
from blockviz.session import Batch, Session
from blockviz.sim import Simulator

DEFAULT_MAX_MODEL_LEN = 4096  # the Simulator's own default, kept unless a request needs more


@dataclass(frozen=True)
class LazyPrompt:
    """A prompt whose token ids are made when its request is added: `length` of them, by `make()`."""
    length: int
    make: Callable[[], Seq[int]]

    def __len__(self) -> int:
        return self.length


Prompt = str | Seq[int] | LazyPrompt


def prompt_length(prompt: Any) -> int:
    """The number of tokens of a prompt (checked: text, token ids, or a LazyPrompt of length >= 1)."""
    if isinstance(prompt, LazyPrompt):
        if not callable(prompt.make):
            raise ValueError(f"prompt.make must be a function giving the token ids, got {prompt.make!r:.80}")
        return checks.whole("prompt length", prompt.length, 1)
    if isinstance(prompt, str):
        if not prompt:
            raise ValueError("prompt is empty: a request needs at least one token")
        return len(prompt)
    return len(checks.token_ids("prompt", prompt))


def token_ids(prompt: Prompt) -> str | list[int] | np.ndarray:
    """What an engine's add takes: text as it is, token ids (a LazyPrompt's made now, an array of
    them kept as it is; the engine's add checks every id, against the model's vocabulary where it has one)."""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, LazyPrompt):
        ids = prompt.make()
        if isinstance(ids, (str, bytes)) or not hasattr(ids, "__len__"):
            raise ValueError(f"prompt.make() must give a list of token ids, got {ids!r:.80}")
        if len(ids) != prompt.length:
            raise ValueError(f"prompt.make() gave {len(ids)} token ids, not the {prompt.length} its length says")
        return ids if checks.is_id_array(ids) else list(ids)   # an array is checked as one (checks.token_array)
    return list(prompt)


@dataclass(frozen=True)
class Request:
    """One request of a workload: what it sends, how long it generates, when it arrives."""
    prompt: Prompt
    max_tokens: int = 4
    arrival: int | float = 0      # engine steps, or seconds: the workload's clock says which
    label: str | None = None
    script: str | Seq[int] | None = None
    ignore_eos: bool = False

    def __post_init__(self):
        object.__setattr__(self, "num_prompt_tokens", prompt_length(self.prompt))
        checks.whole("max_tokens", self.max_tokens, 1)
        if isinstance(self.arrival, bool) or not isinstance(self.arrival, Real) or not math.isfinite(self.arrival) \
                or self.arrival < 0:
            raise ValueError(f"arrival must be a number >= 0, got {self.arrival!r:.80}")
        checks.label(self.label)
        if self.script is not None and not isinstance(self.script, str):
            checks.token_ids("script", self.script, allow_empty=True)
        checks.flag("ignore_eos", self.ignore_eos)

    num_prompt_tokens: int = field(init=False, repr=False, compare=False)


def name_of(index: int, request: Request | None = None, label: Any = None) -> str:
    """How an error names a request: its number from 1, and its label when it has one."""
    label = request.label if request is not None else label
    return f"request {index + 1}" + (f" ({label})" if isinstance(label, str) and label else "")


def request(index: int, **fields) -> Request:
    """Request(**fields), any error naming the request: for readers of files and lists of requests."""
    try:
        return Request(**fields)
    except (ValueError, TypeError) as e:
        raise ValueError(f"{name_of(index, label=fields.get('label'))}: {e}") from None


@dataclass(frozen=True)
class Workload:
    """A pool's settings and the requests played on it, in arrival order."""
    block_size: int
    num_blocks: int
    requests: tuple[Request, ...]
    max_num_seqs: int = 512
    max_num_batched_tokens: int = 16384
    free_order: tuple[int, ...] | None = None
    max_model_len: int | None = None   # None: the Simulator's 4096, or the longest request if longer
    clock: Literal["steps", "seconds", "turns"] = "steps"
    when_idle: Literal["refuse", "advance", "shift"] = "refuse"

    def __post_init__(self):
        checks.whole("block_size", self.block_size, 1)
        checks.whole("num_blocks", self.num_blocks, 1)
        checks.whole("max_num_seqs", self.max_num_seqs, 1)
        checks.whole("max_num_batched_tokens", self.max_num_batched_tokens, 1)
        if self.max_model_len is not None:
            checks.whole("max_model_len", self.max_model_len, 1)
        checks.one_of("clock", self.clock, ("steps", "seconds", "turns"))
        checks.one_of("when_idle", self.when_idle, ("refuse", "advance", "shift"))
        order = self.free_order
        if order is not None:
            if not isinstance(order, (list, tuple)) or any(type(b) is not int for b in order) \
                    or sorted(order) != list(range(self.num_blocks)):
                raise ValueError(f"free_order must list every block id 0..{self.num_blocks - 1} once, "
                                 f"got {order!r:.80}")
            object.__setattr__(self, "free_order", tuple(order))
        if not isinstance(self.requests, (list, tuple)):
            raise ValueError(f"requests must be a list of Requests, got {self.requests!r:.80}")
        labelled: dict[str, int] = {}
        for i, r in enumerate(self.requests):
            if not isinstance(r, Request):
                raise ValueError(f"request {i + 1} must be a workload Request, got {type(r).__name__}")
            if r.label is not None:
                if r.label in labelled:
                    raise ValueError(f"{name_of(i, r)}: each request needs its own label; {r.label} is the label "
                                     f"of request {labelled[r.label] + 1} too")
                labelled[r.label] = i
            if self.clock != "seconds" and not isinstance(r.arrival, Integral):
                raise ValueError(f"{name_of(i, r)}: arrival must be a whole number of {self.clock}, got {r.arrival!r}")
            longest = r.num_prompt_tokens + r.max_tokens
            if self.max_model_len is not None and longest > self.max_model_len:
                raise ValueError(f"{name_of(i, r)}: prompt ({r.num_prompt_tokens}) + max_tokens ({r.max_tokens}) "
                                 f"= {longest} exceeds max_model_len={self.max_model_len}")
            if blocks_needed(longest - 1, self.block_size) > self.num_blocks:
                raise ValueError(f"{name_of(i, r)} ({r.num_prompt_tokens} prompt + {r.max_tokens} max_tokens) "
                                 f"can never fit in {self.num_blocks} blocks of {self.block_size}")
        order_in = sorted(range(len(self.requests)), key=lambda i: self.requests[i].arrival)
        object.__setattr__(self, "requests", tuple(self.requests[i] for i in order_in))

    @property
    def longest_request(self) -> int:
        return max((r.num_prompt_tokens + r.max_tokens for r in self.requests), default=0)

    def simulator(self, kind: type[Simulator] = Simulator, **options) -> Simulator:
        """A Simulator (or a subclass: `kind`) with this pool (options: the Simulator's others, e.g.
        record, rule, eos)."""
        model_len = self.max_model_len or max(DEFAULT_MAX_MODEL_LEN, self.longest_request)
        return kind(num_blocks=self.num_blocks, block_size=self.block_size, max_num_seqs=self.max_num_seqs,
                    max_num_batched_tokens=self.max_num_batched_tokens, max_model_len=model_len,
                    free_order=None if self.free_order is None else list(self.free_order), **options)


def workload_error(index: int, request: Request, e: Exception) -> ValueError:
    return ValueError(f"{name_of(index, request)}: {e}")


# --- the driver ---------------------------------------------------------------------------------

StepTime = Callable[[Batch], float]


def linear_step_time(batch: Batch, fixed_s: float = 0.015, per_token_s: float = 0.00005) -> float:
    """The default step-time model: a fixed cost a step plus a cost per scheduled token."""
    return fixed_s + per_token_s * batch.num_tokens


@dataclass
class Served:
    """What became of one request in a play."""
    request: Request
    seq: Sequence | None = None              # None until it is added
    added_step: int = -1                     # engine steps run when it was added
    added_s: float | None = None             # the seconds clock then (seconds clock only)
    finished_step: int = -1                  # the step that finished it
    finished_s: float | None = None
    cached_at_admission: list[int] = field(default_factory=list)  # prefix-cache hit tokens, each admission
    preemptions: int = 0

    @property
    def first_cached_tokens(self) -> int:
        """The cached tokens at its first admission: what vLLM reports as its cached_tokens."""
        return self.cached_at_admission[0]


@dataclass
class Played:
    engine: Session
    served: list[Served]                     # in the workload's (arrival) order
    seconds_at: list[float] = field(default_factory=list)  # seconds clock: the time after each step

    @property
    def num_steps(self) -> int:
        return self.engine.num_steps

    def by_label(self, label: str) -> Served:
        return next(s for s in self.served if s.request.label == label)


def add(engine: Session, request: Request, temperature: float = 0.0) -> Sequence:
    """Add one request to a Simulator (its script too) or an LLM session (greedy by default)."""
    prompt = token_ids(request.prompt)
    if isinstance(engine, Simulator):
        return engine.add(prompt, max_tokens=request.max_tokens, ignore_eos=request.ignore_eos,
                          label=request.label, script=request.script)
    if request.script is not None:
        raise ValueError("a script is for the Simulator: a model generates its own tokens")
    params = SamplingParams(temperature=temperature, max_tokens=request.max_tokens, ignore_eos=request.ignore_eos)
    return engine.add_request(prompt, params, label=request.label)


class Watcher:
    """Counts admissions (their cached tokens, blockviz.hits) and preemptions as the scheduler makes
    them, for the requests played."""

    def __init__(self, engine: Session, served: dict[int, Served]):
        self.scheduler, self.served = engine.scheduler, served
        preempt = self.scheduler.preempt

        def admitted(seq: Sequence, cached_tokens: int):
            if seq.seq_id in served:
                served[seq.seq_id].cached_at_admission.append(cached_tokens)

        def preempted(seq: Sequence):
            preempt(seq)
            if seq.seq_id in served:
                served[seq.seq_id].preemptions += 1

        self.admissions = AdmissionWatch(self.scheduler, admitted)
        self.scheduler.preempt = preempted

    def close(self):
        self.admissions.close()
        del self.scheduler.preempt


class Driver:
    """The driver, one step at a time, for callers that step the engine themselves (the
    build-it-yourself checker steps two engines in lockstep): `admit()` before each step,
    `stepped()` after it. `play` is the loop around these. Use as a context manager, or close()."""

    def __init__(self, workload: Workload, engine: Session | None = None, step_time: StepTime | None = None,
                 temperature: float = 0.0, max_unfinished: int | None = None):
        if max_unfinished is not None:
            checks.whole("max_unfinished", max_unfinished, 1)
        self.max_unfinished = max_unfinished
        self.workload = workload
        self.engine = engine if engine is not None else workload.simulator()
        self.step_time = step_time or linear_step_time
        self.temperature = temperature
        self.seconds = workload.clock == "seconds"
        self.played = Played(self.engine, [Served(r) for r in workload.requests])
        self.by_seq: dict[int, Served] = {}
        self.next = 0                           # the first request not added yet
        self.now = 0.0                          # the seconds clock
        self.turn = -1                          # the turns clock: the turn being added
        self.shifted = 0                        # when_idle="shift": steps the arrivals came sooner
        self.first = self.engine.num_steps      # arrivals count steps from here
        self.finished: list[Served] = []        # the requests the last step finished
        self.watcher = Watcher(self.engine, self.by_seq)

    @property
    def ran(self) -> int:
        return self.engine.num_steps - self.first

    @property
    def all_added(self) -> bool:
        return self.next == len(self.workload.requests)

    @property
    def done(self) -> bool:
        return self.all_added and self.engine.is_finished()

    def admit(self, until: int | None = None, most: int | None = None) -> list[Served]:
        """Add every request whose time has come (an idle engine: see Workload.when_idle), or the first
        `most` of them (the rest at the next call: a replay keeps only a queue's worth of prompts
        made). Returns them."""
        requests, clock = self.workload.requests, self.now if self.seconds else self.ran + self.shifted
        if self.workload.clock == "turns":  # the next turn once every request of the turns before has finished
            if not self.all_added and self.engine.is_finished() and requests[self.next].arrival > self.turn:
                self.turn = requests[self.next].arrival
            clock = self.turn
        elif not self.all_added and self.engine.is_finished() and requests[self.next].arrival > clock:
            if self.seconds:
                self.now = clock = float(requests[self.next].arrival)  # idle: time passes, no step runs
            elif until is not None and requests[self.next].arrival - self.shifted > until:
                return []                                             # nothing more happens before `until`
            elif self.workload.when_idle == "refuse":
                raise ValueError(f"idle at step {self.ran} before {name_of(self.next, requests[self.next])} "
                                 f"arriving at step {requests[self.next].arrival}")
            else:
                if self.workload.when_idle == "shift":                # the later arrivals come as much sooner
                    self.shifted += requests[self.next].arrival - clock
                clock = requests[self.next].arrival                   # the next arrivals come now
        added, scheduler = [], self.engine.scheduler
        while not self.all_added and requests[self.next].arrival <= clock and (most is None or len(added) < most) and (
                self.max_unfinished is None or len(scheduler.waiting) + len(scheduler.running) < self.max_unfinished):
            s = self.played.served[self.next]
            try:
                s.seq = add(self.engine, s.request, self.temperature)
            except ValueError as e:
                raise workload_error(self.next, s.request, e) from None
            s.added_step, s.added_s = self.ran, self.now if self.seconds else None
            self.by_seq[s.seq.seq_id] = s
            added.append(s)
            self.next += 1
        return added

    def stepped(self) -> Batch:
        """After the engine ran a step: the clock moves on, the requests it finished are marked."""
        batch = self.engine.last_batch
        if self.seconds:
            self.now += self.step_time(batch)
            self.played.seconds_at.append(self.now)
        finished, self.finished = SequenceStatus.FINISHED, []
        for seq in [seq for seq in batch.seqs if seq.status is finished]:   # one read a request: this runs every step
            s = self.by_seq.get(seq.seq_id)
            if s is not None and s.finished_step < 0:
                s.finished_step, s.finished_s = self.ran, self.now if self.seconds else None
                self.finished.append(s)
        return batch

    def run_quiet(self, most: int) -> int:
        """For an engine that takes steps deciding nothing at once (TraceSimulator: quiet_steps(),
        decode_batch(), run_quiet()): run up to `most` of them, stopping after the one that makes the
        next request due (admit() hands it over before the step after). The clock moves as after as
        many stepped(); nobody finishes in them. Returns how many ran."""
        checks.whole("most", most, 1)
        due = None if self.all_added or self.workload.clock == "turns" else self.workload.requests[self.next].arrival
        if self.seconds:
            duration, now, times = self.step_time(self.engine.decode_batch()), self.now, []
            while len(times) < most and (not times or due is None or now < due):
                now += duration
                times.append(now)
            steps = len(times)
        else:
            steps = most if due is None else min(most, max(1, due - self.ran - self.shifted))
        self.engine.run_quiet(steps)
        if self.seconds:
            self.now = now
            self.played.seconds_at.extend(times)
        self.finished = []
        return steps

    def close(self):
        self.watcher.close()

    def __enter__(self) -> "Driver":
        return self

    def __exit__(self, *exc):
        self.close()


def play(workload: Workload, engine: Session | None = None, step_time: StepTime | None = None,
         max_steps: int | None = None, on_step: Callable[[Session, Batch], None] | None = None,
         temperature: float = 0.0, until: int | None = None, max_unfinished: int | None = None) -> Played:
    """Play `workload` on `engine` (default: workload.simulator()) until every request finishes, or,
    with `until`, until that many steps have run (the requests arriving then added, not scheduled)."""
    if max_steps is not None:
        checks.whole("max_steps", max_steps, 1)
    if until is not None:
        checks.whole("until", until, 0)
    with Driver(workload, engine, step_time, temperature, max_unfinished) as driver:
        while True:
            driver.admit(until)
            if driver.done or (until is not None and driver.ran >= until) or driver.engine.is_finished():
                return driver.played
            if max_steps is not None and driver.ran >= max_steps:
                raise ValueError(f"max_steps = {max_steps} ran out with requests still "
                                 f"{'running' if driver.all_added else 'to arrive'}; raise max_steps")
            driver.engine.step()
            batch = driver.stepped()
            if on_step is not None:
                on_step(driver.engine, batch)
