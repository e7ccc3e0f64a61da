"""Each request's prefix-cache hit at admission, kept after it finishes.

nano-vllm sets num_cached_tokens at allocate and resets it to 0 at deallocate, so a finished
request's snapshot no longer shows what it reused. The admission step's events still do
(blockviz.hits.admitted: a CanAllocate that a Scheduled of the same step follows), and one
BlockShared (a hit on a used block) or BlockRevived (a hit on a free block) per reused block says
where each came from. A HitLedger reads each new frame once.

Under policy "sglang" every hit is a BlockShared (a page found in the radix tree): one that no
running request held (ref_count 1 after the hit) was cached in the tree only, which is what a
revived block is under a hash chain, so it counts with hit_free; `radix` says to call it cached.
"""
from dataclasses import dataclass

from blockviz.hits import PREFILLED_TOKENS, HitRate, admitted
from blockviz.recording.events import BlockRevived, BlockShared, CacheProbe, Preempted, Scheduled


@dataclass(frozen=True)
class AdmissionHit:
    step: int        # the step that admitted the request (its latest admission, after a preemption)
    hit_used: int    # reused blocks another request held: shared, no free block spent
    hit_free: int    # reused blocks from the free queue: revived, content intact
    tokens: int      # tokens reused: nano-vllm's num_cached_tokens at allocate
    admissions: int  # 1, or more for a request preempted and admitted again
    probes: tuple[tuple[int, str, int, int], ...] = ()  # can_allocate's walk: (index, outcome, hash, block id)
    radix: bool = False  # found in SGLang's radix tree (policy "sglang"): hit_free were cached in the tree

    @property
    def blocks(self) -> int:
        return self.hit_used + self.hit_free


class HitLedger:

    def __init__(self, block_size: int, radix: bool = False):
        self.block_size = block_size
        self.radix = radix                    # policy "sglang": pages found in a radix tree
        self.upto = 0                         # the next step to read
        self.by_seq: dict[int, AdmissionHit] = {}
        self.tokens_saved = 0                 # over every admission
        self.prefill_tokens = 0               # prompt tokens computed (prefill chunks)
        self.preemptions = 0

    def update(self, timeline):
        """Read the frames that came since the last call (those still kept, with bounded history)."""
        last = timeline.last_step   # read once: a live timeline may grow meanwhile; what it adds is read next call
        for step in range(max(self.upto, getattr(timeline, "first_step", 0)), last + 1):
            self.read(step, timeline.events(step))
        self.upto = max(self.upto, last + 1)

    def read(self, step: int, events):
        probes: dict[int, list[tuple[int, str, int, int]]] = {}
        used: dict[int, int] = {}
        free: dict[int, int] = {}
        for event in events:
            if isinstance(event, CacheProbe):
                probes.setdefault(event.seq_id, []).append((event.index, event.outcome, event.hash, event.block_id))
            elif isinstance(event, BlockShared):
                held = used if event.ref_count > 1 else free   # 1: no other request held it (sglang's cached page)
                held[event.seq_id] = held.get(event.seq_id, 0) + 1
            elif isinstance(event, BlockRevived):
                free[event.seq_id] = free.get(event.seq_id, 0) + 1
            elif isinstance(event, Scheduled):
                if event.is_prefill:
                    self.prefill_tokens += sum(event.num_tokens)
            elif isinstance(event, Preempted):
                self.preemptions += 1
        for seq_id, blocks in admitted(events).items():
            hit_used, hit_free = used.get(seq_id, 0), free.get(seq_id, 0)   # blocks == hit_used + hit_free
            tokens = blocks * self.block_size
            before = self.by_seq.get(seq_id)
            self.by_seq[seq_id] = AdmissionHit(step, hit_used, hit_free, tokens, 1 + (before.admissions if before else 0),
                                             tuple(probes.get(seq_id, ())), self.radix)
            self.tokens_saved += tokens

    @property
    def hits(self) -> HitRate:
        """The tokens the cache served at every admission, over those and the prefill chunks computed."""
        return HitRate(self.tokens_saved, self.tokens_saved + self.prefill_tokens, PREFILLED_TOKENS)

    @property
    def hit_rate(self) -> float:
        """hits.value: the share of prompt tokens the cache served instead of a prefill."""
        return self.hits.value
