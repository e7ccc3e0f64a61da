"""What the designs view draws: the same requests through nano-vllm and SGLang (designs.serve, each
request served alone in turn), and each design's cache after each request.

- nano-vllm's run is recorded: its pool after request i is the recording's snapshot at the step
  where request i finished (`nano_steps[i]`), drawn by the pool view's renderer.
- SGLang's run is recorded too: after request i (`sglang_steps[i]`) its tree is the recording's
  (Snapshot.tree), its token pool runs of free, used and cached pages (page_states' partition, read
  from that snapshot), and the nodes the request's tokens pass through, with the tokens each holds;
  `Comparison.sglang[i]` reads them when asked.
"""
from dataclasses import dataclass

import numpy as np

from blockviz.designs import DESIGNS, Served, serve
from blockviz.engine.sequence import Sequence
from blockviz.recording.radix_tree import RecordedTree
from blockviz.recording.snapshot import Snapshot
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


def page_codes(states: dict[str, set[int]], num_pages: int) -> np.ndarray:
    """SglangBlockManager.page_states as each page's index in PAGE_STATES."""
    codes = np.zeros(num_pages, dtype=np.int8)
    for code, state in enumerate(PAGE_STATES[1:], start=1):
        codes[list(states[state])] = code
    return codes


def recorded_page_codes(snapshot: Snapshot) -> np.ndarray:
    """page_codes at a recorded step: used, the pages in a running request's block table
    (ref_count > 0); cached, the tree's other pages; free, the rest. From the tree and the tables
    only: the pool's columns (states.state_codes) would read a GPU-sized pool whole on a jump."""
    codes = np.zeros(snapshot.num_blocks, dtype=np.int8)
    cached = snapshot.tree_pages
    codes[np.fromiter(cached, np.int64, len(cached))] = PAGE_STATES.index("cached")
    used = [page for seq_id in snapshot.running for page in snapshot.seqs[seq_id].block_table]
    codes[np.asarray(used, np.int64)] = PAGE_STATES.index("used")
    return codes


def runs_of(codes: np.ndarray) -> PageRuns:
    """Pages in runs of consecutive pages in one state."""
    starts = np.flatnonzero(np.diff(codes, prepend=-1))
    return PageRuns(len(codes), starts, codes[starts])


def page_runs(states: dict[str, set[int]], num_pages: int) -> PageRuns:
    """SglangBlockManager.page_states as runs of consecutive pages in one state."""
    return runs_of(page_codes(states, num_pages))


def tree_path(tree: RecordedTree, token_ids: list[int]) -> list[tuple[int, int, int]]:
    """In a recorded tree (or a live RadixCache): (node id, first token, one past its last token) of each node whose edge continues
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
    tree: RecordedTree                     # the recording's, at the step
    pages: PageRuns
    path: tuple[tuple[int, int, int], ...]   # tree_path of the request's tokens


@dataclass(frozen=True)
class SglangAfters:
    """SGLang's cache after each request, read from its recording when asked (a list's [i], len)."""
    sim: Simulator
    steps: list[int]     # the step each request finished at
    seq_ids: list[int]

    def __len__(self) -> int:
        return len(self.steps)

    def __getitem__(self, i: int) -> SglangAfter:
        snapshot = self.sim.snapshot(self.steps[i])
        tree = snapshot.tree
        return SglangAfter(tree, runs_of(recorded_page_codes(snapshot)),
                           tuple(tree_path(tree, list(snapshot.seqs[self.seq_ids[i]].token_ids))))

    def __iter__(self):
        return (self[i] for i in range(len(self)))


@dataclass
class Comparison:
    """compare()'s result: per design the Served rows, nano-vllm's recorded Simulator and the step
    each request finished at, and what SGLang's cache held after each request (from its recording)."""
    prompts: list[list[int]]                # token ids
    labels: list[str]
    served: dict[str, list[Served]]
    nano: Simulator
    nano_steps: list[int]
    sglang: SglangAfters
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
    recorded: list[Simulator] = []
    sglang_steps: list[int] = []
    sglang_ids: list[int] = []
    sglang_run: list[Simulator] = []

    def nano_after(sim: Simulator, seq: Sequence):
        recorded[:] = [sim]
        steps.append(sim.num_steps)

    def sglang_after(sim: Simulator, seq: Sequence):
        sglang_run[:] = [sim]
        sglang_steps.append(sim.num_steps)
        sglang_ids.append(seq.seq_id)

    served = {"nano-vllm": serve(prompts, "nano-vllm", num_blocks, block_size, max_tokens, record=True,
                                 after=nano_after),
              "sglang": serve(prompts, "sglang", num_blocks, block_size, max_tokens, record=True,
                              after=sglang_after)}
    sglang = SglangAfters(sglang_run[0] if sglang_run else Simulator(num_blocks=num_blocks, block_size=block_size,
                                                                     policy="sglang"), sglang_steps, sglang_ids)
    sim = recorded[0] if recorded else Simulator(num_blocks=num_blocks, block_size=block_size)
    token_ids = [sim.tokenizer.encode(p) if isinstance(p, str) else list(p) for p in prompts]
    names = list(labels) if labels is not None else [str(i + 1) for i in range(len(prompts))]
    if len(names) != len(prompts):
        raise ValueError(f"labels: one per prompt ({len(prompts)}), got {len(names)}")
    return Comparison(token_ids, names, served, sim, steps, sglang, num_blocks, block_size)
