"""What the designs view draws: the same requests through nano-vllm and SGLang (designs.serve, each
request served alone in turn), and each design's cache after each request.

- nano-vllm's run is recorded: its pool after request i is the recording's snapshot at the step
  where request i finished (`nano_steps[i]`), drawn by the pool view's renderer.
- SGLang's run is not recorded yet (policies/sglang.py), so what its view needs is kept as each
  request finishes: a still copy of the tree (copy_tree: new nodes over the same token arrays, so a
  few hundred requests over a GPU-sized pool cost megabytes, not a tree of tokens each), its token
  pool as runs of free, used and cached pages (SglangBlockManager.page_states), and the nodes the
  request's tokens pass through, with the tokens each holds.
"""
from dataclasses import dataclass

import numpy as np

from blockviz.designs import DESIGNS, Served, serve
from blockviz.engine.sequence import Sequence
from blockviz.radix.radix_cache import RadixCache, TreeNode
from blockviz.sim import Simulator

PAGE_STATES = ("free", "used", "cached")   # a page's code is its index here


@dataclass(frozen=True)
class PageRuns:
    """A token pool of `num_pages` pages as runs: run k is pages starts[k] .. starts[k+1] - 1 (the
    last run ends at the pool's end), all in state PAGE_STATES[codes[k]]."""
    num_pages: int
    starts: np.ndarray
    codes: np.ndarray

    @property
    def ends(self) -> np.ndarray:
        """One past each run's last page."""
        return np.append(self.starts[1:], self.num_pages)

    def counts(self) -> dict[str, int]:
        sizes = np.bincount(self.codes, weights=self.ends - self.starts, minlength=len(PAGE_STATES))
        return {state: int(n) for state, n in zip(PAGE_STATES, sizes)}


def page_runs(states: dict[str, set[int]], num_pages: int) -> PageRuns:
    """SglangBlockManager.page_states as runs of consecutive pages in one state."""
    codes = np.zeros(num_pages, dtype=np.int8)
    for code, state in enumerate(PAGE_STATES[1:], start=1):
        codes[list(states[state])] = code
    starts = np.flatnonzero(np.diff(codes, prepend=-1))
    return PageRuns(num_pages, starts, codes[starts])


def copy_tree(tree: RadixCache) -> RadixCache:
    """A copy of `tree` as it is now, for drawing: every node's fields (ids, lock counts, access
    times, hit counts: what the eviction order reads), the same key and value arrays (SGLang never
    changes one in place: a split or an eviction puts a new one on the node), the evictable leaves
    and sizes. Making it draws no node id: TreeNode's counter is left where it was."""
    counter = TreeNode.counter
    copy = RadixCache.create_simulated(page_size=tree.page_size, eviction_policy=tree.eviction_policy)
    TreeNode.counter = counter
    copies = {}
    stack = [(tree.root_node, None, None)]
    while stack:   # iterative: a long chain must not reach Python's recursion limit
        node, key, parent = stack.pop()
        new = TreeNode.__new__(TreeNode)
        new.__dict__.update(vars(node))
        new.parent, new.children = parent, {}
        if parent is not None:
            parent.children[key] = new
        copies[id(node)] = new
        stack.extend((child, k, new) for k, child in node.children.items())
    copy.root_node = copies[id(tree.root_node)]
    copy.evictable_leaves = {copies[id(leaf)] for leaf in tree.evictable_leaves}
    copy.evictable_size_, copy.protected_size_ = tree.evictable_size_, tree.protected_size_
    return copy


def tree_path(tree: RadixCache, token_ids: list[int]) -> list[tuple[int, int, int]]:
    """(node id, first token, one past its last token) of each node whose edge continues
    `token_ids` from the root, in order; stops where no child's edge does. Reads only: SGLang's
    match_prefix would split a node and touch access times."""
    path, node, at = [], tree.root_node, 0
    while True:
        child = next((c for c in node.children.values() if len(c.key) and at + len(c.key) <= len(token_ids)
                      and list(c.key.token_ids[:len(c.key)]) == token_ids[at:at + len(c.key)]), None)
        if child is None:
            return path
        path.append((child.id, at, at + len(child.key)))
        node, at = child, at + len(child.key)


@dataclass(frozen=True)
class SglangAfter:
    tree: RadixCache                       # a still copy
    pages: PageRuns
    path: tuple[tuple[int, int, int], ...]   # tree_path of the request's tokens


@dataclass
class Comparison:
    """compare()'s result: per design the Served rows, nano-vllm's recorded Simulator and the step
    each request finished at, and what SGLang's cache held after each request."""
    prompts: list[list[int]]                # token ids
    labels: list[str]
    served: dict[str, list[Served]]
    nano: Simulator
    nano_steps: list[int]
    sglang: list[SglangAfter]
    num_blocks: int
    block_size: int

    def __len__(self) -> int:
        return len(self.prompts)

    def differs(self, i: int) -> tuple[int, int]:
        """The prompt tokens [lo, hi) of request i that one design hit and the other recomputed
        (both hits are prefixes of the prompt, so they differ by one span); lo == hi: none."""
        hits = [self.served[d][i].hit for d in DESIGNS]
        return min(hits), max(hits)


def compare(prompts: list[str] | list[list[int]], num_blocks: int = 16, block_size: int = 4, max_tokens: int = 4,
            labels: list[str] | None = None) -> Comparison:
    """Each prompt through both designs, alone in turn, keeping each design's cache after each."""
    steps: list[int] = []
    sglang: list[SglangAfter] = []
    recorded: list[Simulator] = []

    def nano_after(sim: Simulator, seq: Sequence):
        recorded[:] = [sim]
        steps.append(sim.num_steps)

    def sglang_after(sim: Simulator, seq: Sequence):
        bm = sim.scheduler.block_manager
        sglang.append(SglangAfter(copy_tree(bm.tree), page_runs(bm.page_states(), num_blocks),
                                  tuple(tree_path(bm.tree, seq.token_ids))))

    served = {"nano-vllm": serve(prompts, "nano-vllm", num_blocks, block_size, max_tokens, record=True,
                                 after=nano_after),
              "sglang": serve(prompts, "sglang", num_blocks, block_size, max_tokens, after=sglang_after)}
    sim = recorded[0] if recorded else Simulator(num_blocks=num_blocks, block_size=block_size)
    token_ids = [sim.tokenizer.encode(p) if isinstance(p, str) else list(p) for p in prompts]
    names = list(labels) if labels is not None else [str(i + 1) for i in range(len(prompts))]
    if len(names) != len(prompts):
        raise ValueError(f"labels: one per prompt ({len(prompts)}), got {len(names)}")
    return Comparison(token_ids, names, served, sim, steps, sglang, num_blocks, block_size)
