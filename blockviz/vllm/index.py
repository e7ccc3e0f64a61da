"""The index of a vLLM prefix cache, built from its KV events: a forest of cached block chains.

Each cached block is a `BlockRecord` (hash, parent hash, its tokens, block size, medium) with the
step it was stored at and the step it was removed at, so the records are their own temporal index:
the cache at step s is the records with stored_at <= s < removed_at. One received batch is one
step. vLLM may cache the same content in two physical blocks (two requests in one step); each
copy is stored and removed with its own event, so a record counts its copies and ends when the
last one goes. With `history`, only the newest steps are kept, and records that ended before them
are dropped: memory follows what the window shows, not the stream's length.

Whatever a publisher sends, memory has a bound: at most MAX_CACHED_BLOCKS blocks cached (past it the
oldest stored is forgotten, counted in `forgotten_blocks`: a publisher that never removes), the raw
payloads of the newest steps up to MAX_PAYLOAD_BYTES (older steps keep their effect, not their
bytes: counted in `payloads_dropped`), block sizes of at most MAX_SOURCES sources that have nothing
cached (the oldest forgotten).
"""
import itertools
from collections import deque

import msgspec

from blockviz.vllm.wire import Event, Hash, RemovedFields, StoredFields

PRIMARY_MEDIUMS = (None, "GPU")   # the device cache that a new request's prefix lookup reads
MAX_CACHED_BLOCKS = 250_000       # 3x what a 141 GB GPU holds of a small model (16 tokens of Qwen3-0.6B: 1.8 MB)
MAX_PAYLOAD_BYTES = 128 << 20     # raw batches kept for events() and save()
MAX_SOURCES = 1024                # block sizes kept for sources with nothing cached


class BlockRecord(msgspec.Struct, eq=False, gc=False):
    """One cached block's lifetime (a msgspec Struct: made in C, a busy engine stores thousands a second)."""
    source: str
    hash: Hash
    parent: Hash | None
    token_ids: tuple[int, ...]
    block_size: int
    medium: str | None
    lora_name: str | None
    extra_keys: object
    group_idx: int | None
    stored_at: int
    removed_at: int | None = None     # None: still cached
    copies: int = 1

    @property
    def full(self) -> bool:
        return len(self.token_ids) == self.block_size

    def resident_at(self, step: int) -> bool:
        return self.stored_at <= step and (self.removed_at is None or step < self.removed_at)


class StepInfo(msgspec.Struct, eq=False):
    """What one received batch did."""
    step: int
    source: str
    seq: int
    ts: float               # the publisher's timestamp
    received_at: float      # wall clock when it was taken in
    payload: bytes          # as received: what a saved recording keeps
    via: str = "live"       # "live" or "replay" (a gap filled from the replay endpoint)
    stored: list[BlockRecord] = msgspec.field(default_factory=list)
    removed: list[BlockRecord] = msgspec.field(default_factory=list)
    cleared: bool = False
    lost_before: int = 0    # batches of this source that were missed just before this one
    payload_dropped: bool = False  # its raw bytes no longer kept (MAX_PAYLOAD_BYTES)
    unknown_removed: int = 0
    events: int = 0
    stored_total: int = 0   # blocks stored / removed since the watch began, after this step
    removed_total: int = 0
    resident: int = 0


class PrefixIndex:

    def __init__(self, history: int | None = None):
        if history is not None and history < 1:
            raise ValueError(f"history must be at least 1 step, got {history}")
        self.history = history
        self.steps: deque[StepInfo] = deque(maxlen=history)
        self.live: dict[tuple, BlockRecord] = {}
        self.by_content: dict[tuple, BlockRecord] = {}   # (source, parent, tokens) -> plain full block
        self.ended: deque[BlockRecord] = deque()           # records that ended, in the order they ended
        self.block_sizes: dict[str, int] = {}
        self.stored_total = self.removed_total = 0
        self.next_step = 0
        self.kept_payloads: deque[StepInfo] = deque()  # the steps whose payload is kept, oldest first
        self.payload_bytes = 0
        self.payloads_dropped = 0
        self.forgotten_blocks = 0
        self.forgotten_sources = 0
        self.sources_cap = MAX_SOURCES

    # -- taking events in ------------------------------------------------------------------

    def apply(self, info: StepInfo, events: list[Event]) -> StepInfo:
        """Record one batch as step `info.step` (the next one)."""
        info.step = self.next_step
        self.next_step += 1
        for event in events:
            if isinstance(event, StoredFields):
                self._store(info, event)
            elif isinstance(event, RemovedFields):
                for block_hash in event.block_hashes:
                    self._remove(info, (info.source, event.medium, event.group_idx, block_hash))
            else:
                self.clear_source(info)
        info.events = len(events)
        info.stored_total, info.removed_total, info.resident = self.stored_total, self.removed_total, len(self.live)
        self.steps.append(info)
        self._forget_before(self.first_step)
        self._keep_payload(info)
        if len(self.live) > MAX_CACHED_BLOCKS:
            self._forget_oldest(len(self.live) - MAX_CACHED_BLOCKS)
        if len(self.block_sizes) > self.sources_cap:
            self._forget_sources()
            self.sources_cap = max(MAX_SOURCES, 2 * len(self.block_sizes))  # busy ones: not again at once
        return info

    def _keep_payload(self, info: StepInfo):
        kept = self.kept_payloads
        kept.append(info)
        self.payload_bytes += len(info.payload)
        while kept and (self.payload_bytes > MAX_PAYLOAD_BYTES or kept[0].step < self.first_step):
            old = kept.popleft()
            self.payload_bytes -= len(old.payload)
            if old.step >= self.first_step:  # still in the window: its effect stays, its bytes go
                old.payload, old.payload_dropped = b"", True
                self.payloads_dropped += 1

    @property
    def first_with_payload(self) -> int:
        """The first step from which every kept step still has its payload (what save() can write)."""
        return self.kept_payloads[0].step if self.kept_payloads else self.next_step

    def _forget_oldest(self, n: int):
        """A publisher that stores without removing: the blocks stored first are forgotten (not ended:
        nothing of them is kept)."""
        for key in list(itertools.islice(self.live, n)):
            record = self.live.pop(key)
            content = (record.source, record.parent, record.token_ids)
            if self.by_content.get(content) is record:
                del self.by_content[content]
        self.forgotten_blocks += n

    def _forget_sources(self):
        """Block sizes of sources with nothing cached and no kept step, oldest first, down to half."""
        busy = {r.source for r in self.live.values()} | {info.source for info in self.steps}
        idle = [source for source in self.block_sizes if source not in busy]
        for source in idle[:max(len(self.block_sizes) - MAX_SOURCES // 2, 0)]:
            del self.block_sizes[source]
            self.forgotten_sources += 1

    def restore(self, record: BlockRecord):
        """A block cached before the first step of a saved window (recording.py)."""
        self.live[(record.source, record.medium, record.group_idx, record.hash)] = record
        if self.plain(record):
            self.by_content[(record.source, record.parent, record.token_ids)] = record
        self.block_sizes.setdefault(record.source, record.block_size)

    def _store(self, info: StepInfo, event: StoredFields):
        # the hot path of a busy engine (one call per BlockStored): locals, no helper calls per block
        size, source, medium, group, lora = event.block_size, info.source, event.medium, event.group_idx, event.lora_name
        self.block_sizes[source] = size
        plain = medium in PRIMARY_MEDIUMS and lora is None and not group   # see `plain` below
        live, by_content, tokens_all, extras = self.live, self.by_content, event.token_ids, event.extra_keys
        parent = event.parent_block_hash
        for i, block_hash in enumerate(event.block_hashes):
            key = (source, medium, group, block_hash)
            record = live.get(key)
            if record is not None:
                record.copies += 1
            else:
                tokens = tuple(tokens_all[i * size:(i + 1) * size])
                extra = extras[i] if extras else None
                record = live[key] = BlockRecord(source, block_hash, parent, tokens, size, medium, lora, extra, group,
                                                 info.step)
                if plain and extra is None and len(tokens) == size:
                    by_content[(source, parent, tokens)] = record
                info.stored.append(record)
                self.stored_total += 1
            parent = block_hash

    @staticmethod
    def plain(record: BlockRecord) -> bool:
        """A full block a plain prompt (no LoRA, images or cache salt) can hit in the device cache."""
        return (record.full and record.medium in PRIMARY_MEDIUMS and record.lora_name is None
                and record.extra_keys is None and not record.group_idx)

    def _remove(self, info: StepInfo, key: tuple):
        record = self.live.get(key)
        if record is None:
            info.unknown_removed += 1   # stored before this watch could see it
            return
        record.copies -= 1
        if record.copies == 0:
            self._end(info, key, record)

    def _end(self, info: StepInfo, key: tuple, record: BlockRecord):
        del self.live[key]
        content = (record.source, record.parent, record.token_ids)
        if self.by_content.get(content) is record:
            del self.by_content[content]
        record.removed_at = info.step
        self.ended.append(record)
        info.removed.append(record)
        self.removed_total += 1

    def clear_source(self, info: StepInfo):
        """AllBlocksCleared (or a publisher that restarted): every block of this source is gone."""
        info.cleared = True
        for key, record in [(k, r) for k, r in self.live.items() if r.source == info.source]:
            self._end(info, key, record)

    def _forget_before(self, first: int):
        while self.ended and self.ended[0].removed_at <= first - 1:
            self.ended.popleft()

    # -- reading the picture at a step -----------------------------------------------------

    @property
    def first_step(self) -> int:
        return self.steps[0].step if self.steps else 0

    @property
    def last_step(self) -> int:
        return self.next_step - 1

    def check_step(self, step: int) -> int:
        if self.next_step == 0:
            raise IndexError("no KV events received yet")
        if step < 0:
            step += self.next_step
        if step < self.first_step:
            raise IndexError(f"step {step} is no longer kept: history={self.history} keeps steps "
                             f"{self.first_step}..{self.last_step}")
        if step > self.last_step:
            raise IndexError(f"step {step} has not happened yet (steps {self.first_step}..{self.last_step})")
        return step

    def step_info(self, step: int) -> StepInfo:
        return self.steps[self.check_step(step) - self.first_step]

    def resident(self, step: int) -> list[BlockRecord]:
        """The blocks cached at `step`, in the order they were stored."""
        step = self.check_step(step)
        if step == self.last_step:
            return list(self.live.values())   # a dict keeps the order blocks were stored in
        blocks = [r for r in self.live.values() if r.stored_at <= step]
        blocks += [r for r in self.ended if r.resident_at(step)]
        blocks.sort(key=lambda r: r.stored_at)
        return blocks

    def evictions(self, step: int, limit: int = 64) -> list[BlockRecord]:
        """The last `limit` blocks removed up to `step` (kept in the window), oldest first."""
        step = self.check_step(step)
        out = [r for r in self.ended if r.removed_at <= step]
        return out[-limit:]

    def child(self, source: str, parent: Hash | None, tokens: tuple[int, ...]) -> BlockRecord | None:
        """The cached block (now) that continues `parent` with exactly `tokens`."""
        return self.by_content.get((source, parent, tokens))

    def sources(self) -> list[str]:
        return sorted({info.source for info in self.steps} | set(self.block_sizes))


def phase_ends(index: PrefixIndex) -> list[int]:
    """The last step before each new start, and the last step. A new start is a source's cache
    cleared after that source had cached something (the clears of a fresh engine do not count);
    the clears of the other sources that follow it belong to the same start."""
    ends, worked, previous = [], set(), None
    for info in index.steps:
        if info.cleared and info.source in worked and previous is not None and not previous.cleared:
            ends.append(info.step - 1)
            worked.clear()
        elif not info.cleared:
            worked.add(info.source)
        previous = info
    return ends + [index.last_step]
