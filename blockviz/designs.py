"""The field's two designs of prefix caching on the same requests: nano-vllm's hashed blocks and
SGLang's radix tree (policy "sglang"), each request served alone in turn, so what each design hits,
recomputes and evicts is that request's own. Numbers come from the engines, never typed in.

- hit: the prompt tokens the cache served at admission (blockviz.hits: num_cached_tokens);
- recompute: the prompt tokens prefilled, prompt - hit;
- evict: cached tokens the design dropped while serving it: for nano-vllm, each block that
  _allocate_block took while it was still findable (its hash in hash_to_block_id), times the block
  size; for SGLang, what RadixCache.evict freed.

serve can also record the run and call `after(sim, seq)` once each request has finished: the
designs view (designs_after.py) notes the step, to read each design's cache after each request.
"""
from dataclasses import dataclass
from typing import Callable

from blockviz.engine.sequence import Sequence
from blockviz.hits import AdmissionWatch
from blockviz.radix.radix_cache import RadixCache
from blockviz.sim import Simulator

DESIGNS = ("nano-vllm", "sglang")


@dataclass(frozen=True)
class Served:
    prompt: int      # prompt tokens
    hit: int
    recompute: int
    evict: int       # cached tokens dropped while it ran
    blocks: tuple[int, ...] = ()   # its block table (pages, for SGLang) as it finished: hit ones first


class LastTables:
    """Each request's block table as deallocate found it (the table is cleared there), by wrapping
    the block manager's deallocate (close() lets go). A preempted request is dealt with again on
    finishing, so the last table kept is the finished one."""

    def __init__(self, bm):
        self.bm, self.tables, deallocate = bm, {}, bm.deallocate

        def kept(seq):
            self.tables[seq.seq_id] = tuple(seq.block_table)
            return deallocate(seq)
        bm.deallocate = kept

    def close(self):
        del self.bm.deallocate


class EvictionCount:
    """Counts the cached tokens a block manager drops, by wrapping the one method that drops them
    (close() lets go): SGLang's RadixCache.evict, or nano-vllm's BlockManager._allocate_block when it
    takes a block whose content could still be hit."""

    def __init__(self, bm):
        self.tokens = 0
        tree = getattr(bm, "tree", None)
        if isinstance(tree, RadixCache):
            self.owner, self.name, evict = tree, "evict", tree.evict

            def counted(params):
                result = evict(params)
                self.tokens += result.num_tokens_evicted
                return result
        else:
            self.owner, self.name, allocate = bm, "_allocate_block", bm._allocate_block

            def counted():
                block = bm.blocks[bm.free_block_ids[0]]
                if block.hash != -1 and bm.hash_to_block_id.get(block.hash) == block.block_id:
                    self.tokens += bm.block_size
                return allocate()
        setattr(self.owner, self.name, counted)

    def close(self):
        delattr(self.owner, self.name)


After = Callable[[Simulator, Sequence], None]


def serve(prompts: list[str], policy: str, num_blocks: int, block_size: int, max_tokens: int,
          record: bool = False, after: After | None = None) -> list[Served]:
    """Each prompt through one Simulator under `policy`, one request at a time; `after(sim, seq)`
    once each has finished. record: keep the run's recording."""
    sim = Simulator(num_blocks=num_blocks, block_size=block_size, policy=policy, record=record)
    bm = sim.scheduler.block_manager
    admitted: dict[int, int] = {}
    watch = AdmissionWatch(sim.scheduler, lambda seq, cached: admitted.setdefault(seq.seq_id, cached))
    evictions = EvictionCount(bm)
    tables = LastTables(bm)
    served = []
    try:
        for prompt in prompts:
            evicted_before = evictions.tokens
            seq = sim.add(prompt, max_tokens=max_tokens)
            sim.run()
            hit = admitted[seq.seq_id]
            served.append(Served(seq.num_prompt_tokens, hit, seq.num_prompt_tokens - hit,
                                 evictions.tokens - evicted_before, tables.tables.pop(seq.seq_id)))
            if after is not None:
                after(sim, seq)
    finally:
        watch.close()
        evictions.close()
        tables.close()
    return served


def side_by_side(prompts: list[str], num_blocks: int = 16, block_size: int = 4,
                 max_tokens: int = 4) -> dict[str, list[Served]]:
    """design -> what each request hit, recomputed and evicted under it, in the order given."""
    return {design: serve(prompts, design, num_blocks, block_size, max_tokens) for design in DESIGNS}
