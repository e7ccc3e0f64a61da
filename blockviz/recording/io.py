"""Traces on disk (never pickle), read back lazily and checked as they are read.

Format 2 is JSON Lines: a header line (the engine's config, the free queue it started from, the
tokenizer, the block policy), then one line per step with what the live run decided (the requests
that arrived before it, the token each scheduled request sampled) and what only the live run knew
(model events, K/V values), and now and then a keyframe line: the whole engine at the end of a step
(recording/keyframe.py). The engine is deterministic, so replaying those inputs rebuilds every event
and picture exactly, from step 0 or from the keyframe before the step asked for. A session that
records to a file (`record_to=`) appends each step's line as it runs, so a crash loses at most the
step being written. A loaded trace keeps the raw lines and replays them only as far as a view reads
(recording/rebuild.py), so loading costs one pass of validation, not a replay.

Format 1 (one JSON document with a full picture per step) still loads.
"""
import os
import stat
from collections.abc import Sequence as SequenceABC
from pathlib import Path
from time import perf_counter
from typing import IO, Any

import msgspec
from blockviz.brief import brief
from blockviz.char_tokenizer import CharTokenizer, TokenIds
from blockviz.config import Config
from blockviz.jsonfile import decode_json
from blockviz.checks import MAX_SIM_BLOCKS, MAX_TOKEN_ID
from blockviz.policies import Policy, get as get_policy, names as policy_names
from blockviz.sampling_params import SamplingParams
from blockviz.recording.events import KVWritten, StepTimed, event_from_dict
from blockviz.recording.format import FORMAT, PieceTokenizer, TraceError, payload_from_dict, payload_to_dict
from blockviz.recording.keyframe import KeyframeLine, keyframe_of
from blockviz.recording.rebuild import Arrival, LazyFrames, StepRecord
from blockviz.recording.timeline import Timeline

VERSION = 2
MAX_TRACE_BYTES = 2 << 30  # a trace is read whole (its lines are kept): a 1M-step recording is a few hundred MB


# --- what each line holds (msgspec checks the types: a bool is not an int, nor a float a token) ---

class ConfigRecord(msgspec.Struct, forbid_unknown_fields=True):
    block_size: int
    num_blocks: int
    max_num_seqs: int
    max_num_batched_tokens: int
    eos: int


class Header(msgspec.Struct):
    format: str
    version: int
    config: ConfigRecord
    meta: dict[str, Any] = {}
    free_order: list[int] | None = None
    tokenizer: str | None = None
    policy: str = "nano-vllm"   # the block policy the run used (blockviz.policies), replayed by the same


class ArrivalRecord(msgspec.Struct, array_like=True):
    seq_id: int
    label: str
    token_ids: list[int]
    temperature: float
    max_tokens: int
    ignore_eos: bool


class StepLine(msgspec.Struct, forbid_unknown_fields=True):
    step: int
    arrivals: list[ArrivalRecord] = []
    tokens: list[int] = []
    live: list[dict[str, Any]] = []
    payload: dict[str, Any] | None = None
    pieces: dict[str, str] = {}
    failed: str | None = None


class KeyframeStep(msgspec.Struct):
    keyframe: int


LIVE_EVENTS = (KVWritten, StepTimed)  # what only the live run knows; the rest is replayed


# --- writing ----------------------------------------------------------------------------------

_json = msgspec.json.Encoder()


def encode_json(data: dict) -> str:
    return _json.encode(data).decode("utf-8")


class TraceWriter:
    """Writes a session's steps as they run: the header first, then one flushed line per step, and
    a keyframe after a step whenever a keyframe (the median of the last five) took under
    KEYFRAME_SHARE of the time since (so keyframes cost about that share of a run, whatever the pool size), at least
    MIN_KEYFRAME_GAP steps apart; `keyframe_every` fixes the gap instead."""
    KEYFRAME_SHARE = 0.1
    MIN_KEYFRAME_GAP = 100

    def __init__(self, session, path: str | Path, flush: bool = True, keyframe_every: int | None = None):
        self.path = Path(path)
        self.flush = flush
        self.session = session
        self.keyframe_every = keyframe_every
        self.arrived: dict[int, int] = {}  # request id -> the step whose picture first shows it
        self.last_keyframe, self.since = 0, perf_counter()
        self.costs: list[float] = []  # of the last keyframes: their median is the cost (a garbage collection
        #                               in the middle of one is not what the next will cost)
        tokenizer = getattr(session, "tokenizer", None)
        self.name = getattr(tokenizer, "trace_name", None)
        self.tokenizer = tokenizer if tokenizer is not None and self.name is None else None
        self.seen: set[int] = set()  # token ids whose text is already written
        self.file: IO[str] = self.path.open("w", encoding="utf-8")
        s = session
        self.line({"format": FORMAT, "version": VERSION, "meta": dict(s.meta), "config": config_record(s.config),
                   "free_order": s.free_order, "tokenizer": self.name, "policy": s.policy.name})

    def line(self, data: dict):
        self.file.write(encode_json(data) + "\n")
        if self.flush:
            self.file.flush()  # recording as it runs: each step is on disk once it is done

    def pieces(self, token_ids) -> dict[str, str]:
        if self.tokenizer is None:
            return {}
        new = sorted(set(token_ids) - self.seen)
        self.seen.update(new)
        return {str(t): self.tokenizer.decode([t]) for t in new}

    def step(self, step: int, record: StepRecord):
        for a in record.arrivals:
            self.arrived[a.seq_id] = 0 if step == 1 else step  # requests before the first step are in frame 0
        arrivals = [[a.seq_id, a.label, list(a.token_ids), a.sampling_params.temperature,
                     a.sampling_params.max_tokens, a.sampling_params.ignore_eos] for a in record.arrivals]
        tokens = [t for a in record.arrivals for t in a.token_ids] + list(record.token_ids)
        data = {"step": step, "arrivals": arrivals, "tokens": list(record.token_ids),
                "live": [e.to_dict() for e in record.live_events], "pieces": self.pieces(tokens)}
        payload = payload_to_dict(record.payload)
        if payload:
            data["payload"] = payload
        if record.failed is not None:
            data["failed"] = record.failed
        self.line(data)

    def keyframe_due(self, step: int) -> bool:
        if not self.session.policy.keyframes:
            return False   # its state is more than a keyframe holds (SGLang's tree): replayed from step 0
        gap = step - self.last_keyframe
        if self.keyframe_every is not None:
            return gap >= self.keyframe_every
        cost = sorted(self.costs)[len(self.costs) // 2] if self.costs else 0.0
        return gap >= self.MIN_KEYFRAME_GAP and perf_counter() - self.since >= cost / self.KEYFRAME_SHARE

    def keyframe(self, step: int):
        """The live engine now, the end of `step` (written right after that step's line)."""
        start = perf_counter()
        s = self.session
        live = {seq.seq_id for seq in (*s.scheduler.waiting, *s.scheduler.running)}
        self.arrived = {i: step for i, step in self.arrived.items() if i in live}  # in arrival order
        self.line(keyframe_of(s.scheduler, s.labels, self.arrived, step))
        self.since = perf_counter()
        self.last_keyframe = step
        self.costs = [*self.costs[-4:], self.since - start]

    def pending(self, arrivals: list[Arrival]):
        """Requests added after the last step: written as a step line with no tokens (step -1)."""
        if arrivals:
            self.step(-1, StepRecord(tuple(arrivals), ()))

    def close(self):
        self.file.close()


def save_trace(session, path: str | Path):
    """Write everything the session recorded so far (the same lines record_to= appends, without
    keyframes: the session kept only the engine's inputs and its state now, and a keyframe of the
    last step would never be read, since that step's own events need the replay before it)."""
    if session.first_step > 0:
        raise TraceError(f"this session keeps only steps {session.first_step}..{session.last_step} "
                         "(a bounded history); record it to a file from the start with record_to=")
    writer = TraceWriter(session, path, flush=False)
    try:
        for i, record in enumerate(session.step_records):
            writer.step(i + 1, record)
        writer.pending(session.pending_arrivals)
    finally:
        writer.close()


# --- reading ----------------------------------------------------------------------------------

class LoadedTrace(Timeline):
    """A saved trace, replayed as far as a view reads."""

    def __init__(self, config, free_order, records: list[StepRecord], pending: list[Arrival], meta: dict,
                 source: str, keyframes: dict[int, tuple[int, str]] | None = None, labels: dict[int, str] | None = None,
                 policy: Policy | None = None):
        self.config, self.free_order, self.source = config, free_order, source
        self.policy = policy if policy is not None else get_policy("nano-vllm")
        self.step_records, self.pending_arrivals = records, pending
        self.records_dropped = 0
        self.num_steps = len(records)
        self.keyframes = keyframes or {}           # step -> (line number, text), decoded when used
        self.keyframe_steps = sorted(self.keyframes)
        self.labels = labels if labels is not None else {}
        super().__init__(LazyFrames(self), meta)

    def keyframe(self, step: int) -> tuple[KeyframeLine, str]:
        number, text = self.keyframes[step]
        where = f"{self.source}: line {number} (keyframe at step {step})"
        return decode_json(text, KeyframeLine, where, TraceError), where

    def replay_error(self, step: int, error: Exception) -> Exception:
        if isinstance(error, TraceError):
            return error  # a line whose values are wrong: it names itself
        reason = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
        return TraceError(f"{self.source}: step {step} does not replay on this engine ({brief(reason, 300)}): "
                          "the file's steps contradict one another")


def config_record(config) -> dict:
    return {"block_size": config.kvcache_block_size, "num_blocks": config.num_kvcache_blocks,
            "max_num_seqs": config.max_num_seqs, "max_num_batched_tokens": config.max_num_batched_tokens,
            "eos": config.eos}


def load_trace(path: str | Path) -> Timeline:
    """Read a trace saved by save_trace or record_to=. Raises TraceError saying what is wrong,
    with the line or step and the field."""
    path = Path(path)
    raw = read_regular(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise TraceError(f"{path}: not a blockviz trace (not UTF-8 text: {e.reason})") from None
    lines = text.splitlines()
    if len(lines) <= 1 and version_of(text) != VERSION:
        return load_v1(text, str(path))  # format 1 is one JSON document
    return load_lines(lines, str(path), complete=text.endswith("\n"))


def read_regular(path: Path, limit: int | None = None) -> bytes:
    """A regular file's bytes, at most `limit` (MAX_TRACE_BYTES): a FIFO, a device, a socket or a
    symlink loop is refused at once (opened without blocking, checked before any byte is read)."""
    limit = MAX_TRACE_BYTES if limit is None else limit
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise TraceError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise TraceError(f"{path}: is a folder, not a trace file") from None
    except OSError as e:  # a symlink loop (ELOOP), no permission, a socket (ENXIO)
        raise TraceError(f"{path}: cannot be opened as a trace file ({e.strerror})") from None
    with os.fdopen(fd, "rb") as f:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise TraceError(f"{path}: is a folder, not a trace file")
        if not stat.S_ISREG(mode):
            kind = ("a FIFO" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
                    else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
            raise TraceError(f"{path}: is {kind}, not a trace file")
        raw = f.read(limit + 1)
    if len(raw) > limit:
        raise TraceError(f"{path}: larger than {limit >> 20} MB, more than a trace this blockviz loads "
                         f"(blockviz.recording.io.MAX_TRACE_BYTES)")
    return raw


class Peek(msgspec.Struct):
    version: Any = None


def version_of(text: str):
    try:
        return msgspec.json.decode(text, type=Peek).version
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None


def check_header(header: Header, source: str) -> Header:
    if header.format != FORMAT:
        raise TraceError(f"{source}: line 1 (header): not a blockviz trace (format is {brief(header.format)}, "
                         f"expected {FORMAT!r})")
    if header.version != VERSION:
        raise TraceError(f"{source}: line 1 (header): trace version {brief(header.version)} is not supported "
                         f"(this blockviz reads 1..{VERSION})")
    c = header.config
    if not 1 <= c.block_size <= 4096:
        raise TraceError(f"{source}: header: config.block_size must be 1..4096, got {c.block_size}")
    if not 1 <= c.num_blocks <= MAX_SIM_BLOCKS:
        raise TraceError(f"{source}: header: config.num_blocks must be 1..{MAX_SIM_BLOCKS}, got {c.num_blocks}")
    if c.max_num_seqs < 1 or c.max_num_batched_tokens < 1:
        raise TraceError(f"{source}: header: config.max_num_seqs and max_num_batched_tokens must be >= 1")
    if header.free_order is not None and sorted(header.free_order) != list(range(c.num_blocks)):
        raise TraceError(f"{source}: header: free_order must list every block id 0..{c.num_blocks - 1} once")
    if header.policy not in policy_names():
        raise TraceError(f"{source}: header: policy {brief(header.policy)} is not a block policy of this blockviz "
                         f"({', '.join(policy_names())})")
    return header


def check_tokens(token_ids: list[int], where: str):
    if token_ids and (min(token_ids) < 0 or max(token_ids) > MAX_TOKEN_ID):
        bad = next(t for t in token_ids if not 0 <= t <= MAX_TOKEN_ID)
        raise TraceError(f"{where}: token id {bad} is out of range (0..{MAX_TOKEN_ID})")


def step_record(line: StepLine, where: str, num_slots: int) -> StepRecord:
    """The record of a line load_lines has checked already (types, order, request ids, token ranges)."""
    arrivals = []
    for a in line.arrivals:
        if not a.token_ids:
            raise TraceError(f"{where}: arrivals: request {brief(a.label)} has no prompt tokens")
        if a.max_tokens < 1 or a.temperature < 0:
            raise TraceError(f"{where}: arrivals: request {brief(a.label)} needs max_tokens >= 1 and temperature >= 0")
        arrivals.append(Arrival(a.seq_id, tuple(a.token_ids), SamplingParams(a.temperature, a.max_tokens, a.ignore_eos),
                                a.label))
    live = []
    for data in line.live:
        try:
            event = event_from_dict(data)
        except ValueError as e:
            raise TraceError(f"{where}: live: {e}") from None
        if not isinstance(event, LIVE_EVENTS):
            raise TraceError(f"{where}: live: {brief(event.kind)} is replayed, not recorded live")
        if isinstance(event, KVWritten) and not all(0 <= s < num_slots for s in event.slots):
            raise TraceError(f"{where}: live: a written slot is outside the pool (0..{num_slots - 1})")
        live.append(event)
    payload = None
    if line.payload:
        try:
            payload = payload_from_dict(line.payload)
            kv = payload["kv"]
            if not all(isinstance(s, int) and 0 <= s < num_slots for s in kv["slots"]):
                raise ValueError("a slot is outside the pool")
        except (KeyError, TypeError, ValueError) as e:
            raise TraceError(f"{where}: payload is malformed ({e})") from None
    return StepRecord(tuple(arrivals), tuple(line.tokens), tuple(live), payload, line.failed)


class StepLines(SequenceABC):
    """A loaded trace's step records, made from their lines when the replay reaches them: the
    lines' types were checked at load, their values are checked here (a TraceError names them)."""

    def __init__(self, lines: list[tuple[int, str]], source: str, num_slots: int):
        self.lines, self.source, self.num_slots = lines, source, num_slots  # (line number, text) per step

    def __len__(self) -> int:
        return len(self.lines)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        number, text = self.lines[i]
        line = msgspec.json.decode(text, type=StepLine)
        return step_record(line, f"{self.source}: line {number} (step {line.step})", self.num_slots)


def load_lines(lines: list[str], source: str, complete: bool = True) -> Timeline:
    if not lines or not lines[0].strip():
        raise TraceError(f"{source}: not a blockviz trace (empty file)")
    header = check_header(decode_json(lines[0], Header, f"{source}: line 1 (header)", TraceError), source)
    c = header.config
    try:
        config = Config(num_kvcache_blocks=c.num_blocks, kvcache_block_size=c.block_size, max_num_seqs=c.max_num_seqs,
                        max_num_batched_tokens=c.max_num_batched_tokens, eos=c.eos)
    except ValueError as e:
        raise TraceError(f"{source}: line 1 (header): config: {e}") from None
    num_slots = c.num_blocks * c.block_size
    steps, pending, pieces, known, keyframes, labels = [], [], {}, set(), {}, {}
    truncated = False
    for number, text in enumerate(lines[1:], start=2):
        if not text.strip():
            continue
        is_keyframe = text.startswith('{"keyframe":')
        try:  # a keyframe's own fields are checked when a replay resumes from it: only its step now
            line = decode_json(text, KeyframeStep if is_keyframe else StepLine, f"{source}: line {number}", TraceError)
        except TraceError:
            if number == len(lines) and not complete:
                truncated = True  # the step being written when the recording stopped: the rest is whole
                break
            raise
        if is_keyframe:
            if not get_policy(header.policy).keyframes:
                raise TraceError(f"{source}: line {number}: a trace of policy {header.policy!r} has no keyframes "
                                 "(a keyframe does not hold its radix tree)")
            if line.keyframe != len(steps) or pending or not steps:
                raise TraceError(f"{source}: line {number}: a keyframe follows the line of its step "
                                 f"(expected keyframe {len(steps)}, got {line.keyframe})")
            keyframes[line.keyframe] = (number, text)
            continue
        where = f"{source}: line {number} (step {line.step})"
        for a in line.arrivals:
            if a.seq_id in known or a.seq_id < 0:
                raise TraceError(f"{where}: arrivals: request id {a.seq_id} is negative or arrives twice")
            known.add(a.seq_id)
            labels[a.seq_id] = a.label
            check_tokens(a.token_ids, f"{where}: arrivals")
        check_tokens(line.tokens, f"{where}: tokens")
        for token in line.pieces:  # keys are token ids as text (JSON keys are strings)
            if not (token.isascii() and token.isdigit() and len(token) <= 10 and int(token) <= MAX_TOKEN_ID):
                raise TraceError(f"{where}: pieces: the key {brief(token, 40)} is not a token id (0..{MAX_TOKEN_ID})")
        pieces.update(line.pieces)
        if line.step == -1:
            pending.extend(step_record(line, where, num_slots).arrivals)
        elif line.step != len(steps) + 1 or pending:
            raise TraceError(f"{where}: expected step {len(steps) + 1} (steps must follow one another)")
        else:
            steps.append((number, text))
    trace = LoadedTrace(config, header.free_order, StepLines(steps, source, num_slots), pending, header.meta, source,
                        keyframes, labels, get_policy(header.policy))
    trace.truncated = truncated
    if header.tokenizer == "chars":
        trace.tokenizer = CharTokenizer()
    elif header.tokenizer == "ids":
        trace.tokenizer = TokenIds()
    elif pieces:
        trace.tokenizer = PieceTokenizer({int(t): text for t, text in pieces.items()})
    return trace


def load_v1(text: str, source: str) -> Timeline:
    from blockviz.recording.v1 import timeline_from_v1
    return timeline_from_v1(decode_json(text, Any, f"{source}: not a blockviz trace", TraceError), source)
